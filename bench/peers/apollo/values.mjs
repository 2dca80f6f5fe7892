// DynamoDB's wire values as the contract writes them (SPEC sections 1 and 3): the peer's
// own small codec, as a team would write one over the SDK's low-level client.
export const str = (item, name) => item?.[name]?.S ?? null;
export const num = (item, name) => item?.[name]?.N ?? null;
export const bool = (item, name) => item?.[name]?.BOOL ?? null;

// A Decimal's wire form: two decimals at least, more where the number has more, never
// rounded (SPEC section 3). DynamoDB hands numbers over as exact decimal strings.
export function decimal(text) {
  if (text === null || text === undefined) return null;
  let negative = text.startsWith("-");
  const digits = negative ? text.slice(1) : text;
  let [whole, fraction = ""] = digits.split(".");
  whole = whole.replace(/^0+(?=\d)/, "");
  fraction = fraction.replace(/0+$/, "").padEnd(2, "0");
  if (/^0*$/.test(whole) && /^0*$/.test(fraction)) negative = false;
  return `${negative ? "-" : ""}${whole}.${fraction}`;
}

const INSTANT = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(Z|z|[+-]\d{2}:?\d{2})$/;

// An RFC 3339 instant as [epoch seconds, microseconds], offsets applied (Go writes up to
// nanoseconds; like the gateway, microseconds are kept).
export function parseInstant(text) {
  const m = INSTANT.exec(text);
  if (!m) throw new Error(`not an RFC 3339 instant: ${text}`);
  let seconds = Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]) / 1000;
  const micros = +(m[7] ?? "").slice(0, 6).padEnd(6, "0");
  if (!/^[Zz]$/.test(m[8])) {
    const sign = m[8][0] === "-" ? -1 : 1;
    const [h, mm] = [m[8].slice(1, 3), m[8].slice(-2)];
    seconds -= sign * (+h * 3600 + +mm * 60);
  }
  return [seconds, micros];
}

export function formatInstant([seconds, micros]) {
  const base = new Date(seconds * 1000).toISOString().slice(0, 19);
  if (!micros) return `${base}Z`;
  return `${base}.${String(micros).padStart(6, "0").replace(/0+$/, "")}Z`;
}

export const sameInstant = (a, b) => a[0] === b[0] && a[1] === b[1];
export const instant = (item, name) => {
  const text = str(item, name);
  return text ? formatInstant(parseInstant(text)) : null;
};
export const integer = (item, name) => {
  const text = num(item, name);
  return text === null ? null : Number(text);
};
export const texts = (item, name) => (item?.[name]?.L ?? []).map((v) => v.S);
export const map = (item, name) => item?.[name]?.M ?? null;

