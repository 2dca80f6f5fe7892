"""Who is calling: bearer tokens (HS256, or RS256/ES256 from a JWKS file) and the token command."""
