"""Protocol errors. The numbers and names are the ones in src-main/core/ax/protocol.ts (AX_ERROR_NUMBERS)."""

CODES = {
    'STALE_REF': -32001,
    'NOT_FOUND': -32002,
    'AMBIGUOUS': -32003,
    'NOT_VISIBLE': -32004,
    'DISABLED': -32005,
    'TIMEOUT': -32006,
    'PERMISSION': -32007,
    'APP_GONE': -32008,
    'UNSUPPORTED': -32009,
    'FAILED': -32010,
    'INVALID': -32602,
}

SNAPSHOT_HINT = 'take a new snapshot and use the ref it gives'


class AxFail(Exception):
    """A call refused or failed for a reason the caller can act on; becomes a JSON-RPC error."""

    def __init__(self, code, message, **data):
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    def to_error(self):
        data = {'code': self.code}
        data.update({k: v for k, v in self.data.items() if v is not None})
        return {'code': CODES.get(self.code, -32010), 'message': self.message, 'data': data}
