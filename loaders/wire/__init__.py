"""The lean call path: DynamoDB's read operations sent straight over aiohttp (SigV4 signed,
orjson bodies), on the botocore client's own credentials, endpoint, pool and timeouts."""
