// The bench's Node peer: what the gateway's users would otherwise write. Apollo Server 5,
// graphql 16, DataLoader 2 over the AWS SDK v3's DynamoDB client (its defaults), serving
// the frontend query by the contract's read rules (/work/shared/SPEC.md section 2, the
// gateway's loaders/user_reads.py). Like a typical service behind an API gateway it
// verifies no token: `viewer` is the token's `sub`, read without checking the signature.
//
//   PORT=4001 DYNAMODB_ENDPOINT=http://127.0.0.1:8000 node server.mjs
import { ApolloServer } from "@apollo/server";
import { startStandaloneServer } from "@apollo/server/standalone";
import { BatchGetItemCommand, DynamoDBClient, QueryCommand } from "@aws-sdk/client-dynamodb";
import DataLoader from "dataloader";
import { GraphQLScalarType } from "graphql";

import { bool, decimal, formatInstant, instant, integer, map, num, parseInstant, sameInstant, str, texts } from "./values.mjs";

const TABLES = {
  pave: process.env.INSIGHT_TABLE_PAVE ?? "site-pave",
  incomeDetection: process.env.INSIGHT_TABLE_INCOME_DETECTION ?? "site-incomedetection",
  balanceSettings: process.env.INSIGHT_TABLE_BALANCE_SETTINGS ?? "user-balance-settings",
};
const dynamodb = new DynamoDBClient({
  endpoint: process.env.DYNAMODB_ENDPOINT,
  region: process.env.AWS_REGION ?? "us-east-1",
});

// --- reads -------------------------------------------------------------------------------

const live = (item, nowSeconds) => {
  const ttl = num(item, "ttl");
  return ttl === null || Number(ttl) > nowSeconds;
};

const keyId = (table, key) => `${table}\u0000${key.PK?.S ?? key.user_id?.S}\u0000${key.SK?.S ?? ""}`;

function pointLoader(nowSeconds) {
  return new DataLoader(
    async (requests) => {
      const found = new Map();
      let pending = {};
      for (const { table, key } of requests) {
        (pending[table] ??= { Keys: [] }).Keys.push(key);
      }
      for (let attempt = 0; Object.keys(pending).length > 0; attempt++) {
        if (attempt > 0) await new Promise((r) => setTimeout(r, Math.min(1000, 25 * 2 ** attempt) * Math.random()));
        const answer = await dynamodb.send(new BatchGetItemCommand({ RequestItems: pending }));
        for (const [table, items] of Object.entries(answer.Responses ?? {})) {
          for (const item of items) found.set(keyId(table, item), item);
        }
        pending = answer.UnprocessedKeys ?? {};
      }
      return requests.map(({ table, key }) => {
        const item = found.get(keyId(table, key));
        return item && live(item, nowSeconds) ? item : null;
      });
    },
    { cacheKeyFn: ({ table, key }) => keyId(table, key), maxBatchSize: 100 },
  );
}

function queryLoader(nowSeconds) {
  return new DataLoader(
    (queries) =>
      Promise.all(
        queries.map(async ({ table = TABLES.pave, pk, prefix, newestFirst, limit }) => {
          const kept = [];
          let start;
          do {
            const answer = await dynamodb.send(
              new QueryCommand({
                TableName: table,
                KeyConditionExpression: prefix ? "PK = :pk AND begins_with(SK, :prefix)" : "PK = :pk",
                ExpressionAttributeValues: { ":pk": { S: pk }, ...(prefix ? { ":prefix": { S: prefix } } : {}) },
                ScanIndexForward: !newestFirst,
                ...(limit ? { Limit: limit - kept.length } : {}),
                ExclusiveStartKey: start,
              }),
            );
            for (const item of answer.Items ?? []) if (live(item, nowSeconds)) kept.push(item);
            start = answer.LastEvaluatedKey;
          } while (start && !(limit && kept.length >= limit));
          return limit ? kept.slice(0, limit) : kept;
        }),
      ),
    { cacheKeyFn: (q) => JSON.stringify(q) },
  );
}

function monthsBack(today, count) {
  let [year, month] = [today.getUTCFullYear(), today.getUTCMonth() + 1];
  const months = [];
  for (let n = 0; n < count; n++) {
    months.push(`${year}-${String(month).padStart(2, "0")}`);
    if (--month === 0) [year, month] = [year - 1, 12];
  }
  return months;
}

// --- schema ------------------------------------------------------------------------------

const typeDefs = `#graphql
  scalar Date
  scalar DateTime
  scalar Decimal
  type Query { viewer: User! user(id: ID!): User users(ids: [ID!]!): [User]! }
  type User {
    id: ID!
    payday: PaydayPrediction
    incomeVerification: IncomeVerification
    savingsMonths(months: Int = 3): [SavingsMonth!]
    alert: BalanceAlert
    recurringExpenses: [RecurringExpense!]
    rituals: [Ritual!]
    cashAdvanceScores(limit: Int = 10): [CashAdvanceScore!]
    incomeDetectionRuns(limit: Int = 10): [IncomeDetectionRun!]
    income: Income
    latestMine: Mine
    paveLabel: PaveLabel
    lastPages: [LastPage!]
    lowBalanceAlert: Decimal
  }
  type AlgorithmPrediction { payday: Date frequency: String instantCollectionDate: Date standardCollectionDate: Date extendedCollectionDate: Date }
  type PaydayPrediction {
    predictionDate: Date detectionUsed: String nextDate: Date source: String frequency: String
    loanId: String createdDate: DateTime pave: AlgorithmPrediction fm: AlgorithmPrediction v2: AlgorithmPrediction
  }
  type IncomeVerification {
    txnName: String txnId: String amountInCents: Int payFrequency: String institutionId: String
    verificationStatus: String isValid: Boolean lastUpdated: DateTime notes: [String!]! verificationSource: String
  }
  type SavingsMonth { month: String! totalAvailable: Decimal accounts: [AccountBalance!] updatedDate: DateTime }
  type AccountBalance { accountId: String subtype: String amount: Decimal }
  type BalanceAlert {
    alertSent: Boolean updatedDate: DateTime balanceSetting: Decimal availableBalance: Decimal
    currentBalance: Decimal cooldownUntil: DateTime
  }
  type RecurringExpense { lastMine: DateTime merchantUuid: String merchantName: String frequency: String amount: Decimal dueDate: Date category: String }
  type Ritual { lastMine: DateTime merchantId: String merchantName: String frequency: String amount: Decimal dueDate: Date category: String }
  type CashAdvanceScore { score: Decimal modelVersion: String scoredAt: DateTime }
  type Transaction { transactionId: String name: String amount: Decimal date: Date }
  type MethodResult { method: String! transactions: [Transaction!]! }
  type IncomeDetectionRun {
    runDate: DateTime methodResults: [MethodResult!]! mlEnabled: Boolean mlResultsUsed: Boolean
    mlPredictionId: String mlPredictions: [String!]! mlProbabilities: [Decimal!]!
  }
  type Income { source: String amount: Decimal frequency: String nextDate: Date updatedDate: DateTime }
  type Mine { minedAt: DateTime recurringCount: Int ritualCount: Int }
  type PaveLabel { label: String updatedDate: DateTime }
  type LastPage { paveRequestId: String page: Int updatedDate: DateTime }
`;

const passThrough = (name) => new GraphQLScalarType({ name, serialize: (v) => v });
const COOLDOWN_SECONDS = 7 * 24 * 3600;

const resolvers = {
  Date: passThrough("Date"),
  DateTime: passThrough("DateTime"),
  Decimal: passThrough("Decimal"),
  Query: {
    viewer: (_, __, { sub }) => ({ id: sub }),
    user: (_, { id }) => ({ id }),
    users: (_, { ids }) => ids.map((id) => ({ id })),
  },
  User: {
    payday: async ({ id }, _, { points, today }) => {
      const item = await points.load({ table: TABLES.pave, key: { PK: { S: `PAYDAY#${id}` }, SK: { S: "PREDICTION" } } });
      if (!item || str(item, "prediction_date") !== today) return null;
      const prediction = (name) => {
        const m = map(item, name);
        return m && {
          payday: str(m, "payday"),
          frequency: str(m, "frequency"),
          instantCollectionDate: str(m, "instant_collection_date"),
          standardCollectionDate: str(m, "standard_collection_date"),
          extendedCollectionDate: str(m, "extended_collection_date"),
        };
      };
      return {
        predictionDate: str(item, "prediction_date"),
        detectionUsed: str(item, "detection_used"),
        nextDate: str(item, "next_date"),
        source: str(item, "source"),
        frequency: str(item, "frequency"),
        loanId: str(item, "loan_id"),
        createdDate: instant(item, "created_date"),
        pave: prediction("pave"),
        fm: prediction("fm"),
        v2: prediction("v2"),
      };
    },
    incomeVerification: async ({ id }, _, { points }) => {
      const item = await points.load({ table: TABLES.pave, key: { PK: { S: `USERS#${id}` }, SK: { S: "VERIFICATION" } } });
      return item && {
        txnName: str(item, "txn_name"),
        txnId: str(item, "txn_id"),
        amountInCents: integer(item, "amount_in_cents"),
        payFrequency: str(item, "pay_frequency"),
        institutionId: str(item, "institution_id"),
        verificationStatus: str(item, "verification_status"),
        isValid: bool(item, "is_valid"),
        lastUpdated: instant(item, "last_updated"),
        notes: texts(item, "notes"),
        verificationSource: str(item, "verification_source"),
      };
    },
    income: async ({ id }, _, { points }) => {
      const item = await points.load({ table: TABLES.pave, key: { PK: { S: `USERS#${id}` }, SK: { S: `INCOME#${id}` } } });
      return item && {
        source: str(item, "source"),
        amount: decimal(num(item, "amount")),
        frequency: str(item, "frequency"),
        nextDate: str(item, "next_date"),
        updatedDate: instant(item, "updated_date"),
      };
    },
    paveLabel: async ({ id }, _, { points }) => {
      const item = await points.load({ table: TABLES.pave, key: { PK: { S: `LABEL#${id}` }, SK: { S: "PAVE#REFRESH_INSIGHTS" } } });
      return item && { label: str(item, "label"), updatedDate: instant(item, "updated_date") };
    },
    lastPages: async ({ id }, _, { queries }) => {
      const items = await queries.load({ pk: `USERS#${id}`, prefix: "LAST_PAGE#REQUEST_ID#", newestFirst: false, limit: 0 });
      return items.map((item) => ({
        paveRequestId: str(item, "pave_request_id") || item.SK.S.slice("LAST_PAGE#REQUEST_ID#".length),
        page: integer(item, "page"),
        updatedDate: instant(item, "updated_date"),
      }));
    },
    latestMine: async ({ id }, _, { queries }) => {
      const [item] = await queries.load({ pk: `MINE#${id}`, prefix: "TIME#", newestFirst: true, limit: 1 });
      return item && {
        minedAt: formatInstant(parseInstant(item.SK.S.slice("TIME#".length))),
        recurringCount: integer(item, "recurring_count"),
        ritualCount: integer(item, "ritual_count"),
      };
    },
    cashAdvanceScores: async ({ id }, { limit }, { queries }) => {
      const items = await queries.load({ pk: `USERS#${id}`, prefix: "CASH_ADVANCE_SCORE#", newestFirst: true, limit });
      return items.map((item) => ({
        score: decimal(num(item, "score")),
        modelVersion: str(item, "model_version"),
        scoredAt: formatInstant(parseInstant(item.SK.S.slice("CASH_ADVANCE_SCORE#".length))),
      }));
    },
    incomeDetectionRuns: async ({ id }, { limit }, { queries }) => {
      const items = await queries.load({ table: TABLES.incomeDetection, pk: `INCOME_DETECTION#${id}`, prefix: "", newestFirst: true, limit });
      return items.map((item) => ({
        runDate: instant(item, "run_date") ?? formatInstant(parseInstant(item.SK.S)),
        methodResults: Object.keys(item)
          .sort()
          .filter((name) => /^method_.+_results$/.test(name))
          .map((name) => ({
            method: name.slice("method_".length, -"_results".length),
            transactions: (item[name].L ?? []).map(({ M }) => ({
              transactionId: str(M, "transaction_id"),
              name: str(M, "name"),
              amount: decimal(num(M, "amount")),
              date: str(M, "date"),
            })),
          })),
        mlEnabled: bool(item, "ml_enabled"),
        mlResultsUsed: bool(item, "ml_results_used"),
        mlPredictionId: str(item, "ml_prediction_id"),
        mlPredictions: texts(item, "ml_predictions"),
        mlProbabilities: (item.ml_probabilities?.L ?? []).map((v) => decimal(v.N)),
      }));
    },
    savingsMonths: async ({ id }, { months }, { points, now }) => {
      const wanted = monthsBack(now, months);
      const items = await points.loadMany(
        wanted.map((month) => ({ table: TABLES.pave, key: { PK: { S: `USERS#${id}` }, SK: { S: `SAVINGS_MONTH#${month}` } } })),
      );
      return items.flatMap((item, n) => {
        if (item instanceof Error) throw item;
        if (!item) return [];
        const updated = str(item, "updated_date");
        return [
          {
            month: wanted[n],
            totalAvailable: decimal(num(item, "total_available")),
            accounts: (item.accounts?.L ?? []).map(({ M }) => ({
              accountId: str(M, "account_id"),
              subtype: str(M, "subtype"),
              amount: decimal(num(M, "amount")),
            })),
            updatedDate: updated ? formatInstant(parseInstant(updated)) : null,
          },
        ];
      });
    },
    alert: async ({ id }, _, { points }) => {
      const item = await points.load({ table: TABLES.pave, key: { PK: { S: `USERS#${id}` }, SK: { S: `ALERT#${id}` } } });
      if (!item) return null;
      const updated = str(item, "updated_date");
      let cooldownUntil = null;
      if (updated) {
        const [seconds, micros] = parseInstant(updated);
        cooldownUntil = formatInstant([seconds + COOLDOWN_SECONDS, micros]);
      }
      return {
        alertSent: bool(item, "alert_sent"),
        updatedDate: updated ? formatInstant(parseInstant(updated)) : null,
        balanceSetting: decimal(num(item, "balance_setting")),
        availableBalance: decimal(num(item, "available_balance")),
        currentBalance: decimal(num(item, "current_balance")),
        cooldownUntil,
      };
    },
    lowBalanceAlert: async ({ id }, _, { points }) => {
      const item = await points.load({ table: TABLES.balanceSettings, key: { user_id: { S: id } } });
      return item ? decimal(num(item, "low_balance_alert")) : null;
    },
    recurringExpenses: ({ id }, _, { queries }) =>
      latestExpenses(queries, id, "RECURRING#", "merchantUuid", "merchant_uuid"),
    rituals: ({ id }, _, { queries }) => latestExpenses(queries, id, "RITUAL#", "merchantId", "merchant_id"),
  },
};

// The expenses of the user's latest mine (none without a mine), by due date (none last),
// then merchant name; ties keep the table's order.
async function latestExpenses(queries, id, prefix, merchantField, merchantAttribute) {
  const [mines, expenses] = await Promise.all([
    queries.load({ pk: `MINE#${id}`, prefix: "TIME#", newestFirst: true, limit: 1 }),
    queries.load({ pk: `USERS#${id}`, prefix, newestFirst: false, limit: 0 }),
  ]);
  if (mines.length === 0) return [];
  const latest = parseInstant(mines[0].SK.S.slice("TIME#".length));
  const rows = expenses
    .filter((item) => {
      const mine = str(item, "last_mine");
      return mine && sameInstant(parseInstant(mine), latest);
    })
    .map((item) => ({
      lastMine: instant(item, "last_mine"),
      [merchantField]: str(item, merchantAttribute),
      merchantName: str(item, "merchant_name"),
      frequency: str(item, "frequency"),
      amount: decimal(num(item, "amount")),
      dueDate: str(item, "due_date"),
      category: str(item, "category"),
    }));
  const due = (row) => row.dueDate ?? "9999-12-31";
  const name = (row) => row.merchantName ?? "";
  const order = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
  return rows.sort((a, b) => order(due(a), due(b)) || order(name(a), name(b)));
}

function subjectOf(authorization) {
  const token = (authorization ?? "").replace(/^Bearer\s+/i, "");
  const payload = token.split(".")[1];
  if (!payload) return null;
  return JSON.parse(Buffer.from(payload, "base64url").toString("utf8")).sub ?? null;
}

const server = new ApolloServer({ typeDefs, resolvers });
const { url } = await startStandaloneServer(server, {
  listen: { port: Number(process.env.PORT ?? 4001), host: "127.0.0.1" },
  context: async ({ req }) => {
    const now = new Date();
    const nowSeconds = Math.floor(now.getTime() / 1000);
    return {
      sub: subjectOf(req.headers.authorization),
      now,
      today: now.toISOString().slice(0, 10),
      points: pointLoader(nowSeconds),
      queries: queryLoader(nowSeconds),
    };
  },
});
console.log(`apollo peer ready at ${url}`);
