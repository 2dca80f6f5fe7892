"""The lean call path: DynamoDB's read operations sent on connections of its own (SigV4
signed, orjson bodies, answers parsed by httptools), configured from the botocore client's
own credentials, endpoint, pool size, timeouts and TLS settings."""
