"""botocore's parameter check, run only when a call could not even be built.

The gateway's client turns botocore's per-call validation off (it walks every parameter
against the model on every call; DynamoDB validates anyway). A value of the wrong shape
then fails inside botocore's serializer with a bare `AttributeError` or `TypeError`; the
check run afterwards names the parameter, as botocore's own message would.
"""

from __future__ import annotations

from typing import Any

from botocore.validate import ParamValidator


def invalid_parameters(client: Any, operation: str, params: dict[str, Any]) -> str | None:
    """botocore's report on `params` for `operation` (a client method name), or None when
    they are valid (the failure was something else)."""
    meta = client.meta
    api_name = meta.method_to_api_mapping.get(operation)
    if api_name is None:
        return None
    shape = meta.service_model.operation_model(api_name).input_shape
    report = ParamValidator().validate(params, shape)
    return report.generate_report() if report.has_errors() else None
