"""A small IntentHost extension runtime in Python, written from docs/PROTOCOL.md (standard library only).

An Intents extension, an Intents UI extension and an app launched for `handleInApp` all speak the same protocol:
JSON-RPC 2.0, one JSON object per line, requests from the host on stdin and the answers on stdout. `serve()` runs
that loop until the host hangs up:

    import intenthost

    class AddNote:                        # one handler per intent class, as SiriKit's INAddNoteIntentHandling
        def resolve_text(self, intent, context): ...   # optional, one per parameter: a resolution (below)
        def confirm(self, intent, context): ...        # optional: intenthost.ready()
        def handle(self, intent, context): ...         # required: intenthost.response("success", {...})

    intenthost.serve(intents={"AddNoteIntent": AddNote()})

An Intents UI extension passes `configure_view=FUNCTION` instead (see `serve`).

The runtime keeps the real stdout for the protocol and points file descriptor 1 at stderr, so a stray `print`
goes to the extension's log (`<home>/Logs/<bundle id>.log`), never into the protocol stream.
"""

import json
import os
import sys

PROTOCOL_VERSION = 1
IMPLEMENTATION = "intenthost.py 1.0"

# Error codes (docs/PROTOCOL.md, "Errors").
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
NO_HANDLER = -33001
HANDLER_FAILED = -33002
NOT_INITIALIZED = -33003
UNSUPPORTED_VERSION = -33004


class RequestError(Exception):
    """Raise it from a handler to answer the request with this error instead of a result."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message


# --- Values (docs/PROTOCOL.md, "Values and intents"): every value on the wire carries its type.


def string(text):
    return {"type": "string", "value": text}


def integer(number):
    return {"type": "integer", "value": int(number)}


def boolean(flag):
    return {"type": "boolean", "value": bool(flag)}


def value(intent, parameter):
    """The plain value of an intent's parameter (`"Ada"`, `12`), or None when it has none."""
    typed = intent.get("parameters", {}).get(parameter)
    return None if typed is None else typed.get("value")


# --- Resolutions (`intent/resolve` answers): the kinds of INIntentResolutionResult.


def success(typed_value=None):
    """The value is accepted; `typed_value` replaces it when given (e.g. normalised)."""
    return {"kind": "success"} if typed_value is None else {"kind": "success", "value": typed_value}


def not_required():
    return {"kind": "notRequired"}


def needs_value():
    """The host asks the user with the parameter's Primary prompt, then resolves again."""
    return {"kind": "needsValue"}


def disambiguation(candidates):
    """The host lists the typed `candidates`, the user picks one, and the host resolves again with it."""
    return {"kind": "disambiguation", "candidates": candidates}


def confirmation_required(typed_value):
    """The host asks yes/no (the parameter's Confirmation prompt); no is treated as needsValue."""
    return {"kind": "confirmationRequired", "value": typed_value}


def unsupported(reason=None, message=None):
    """The host says the definition's text for `reason` (else `message`) and asks for another value."""
    result = {"kind": "unsupported"}
    if reason is not None:
        result["reason"] = reason
    if message is not None:
        result["message"] = message
    return result


# --- Responses (`intent/confirm` and `intent/handle` answers).


def response(code, parameters=None, user_activity=None):
    """A response: a code name (`success`, `failure`, or one the definition declares) and the typed parameters its
    template uses; `user_activity` is `{"activityType": ..., "userInfo": {...}}` for the app."""
    answer = {"code": code, "parameters": parameters or {}}
    if user_activity is not None:
        answer["userActivity"] = user_activity
    return answer


def ready(parameters=None):
    """Confirm's answer when the intent can go ahead."""
    return response("ready", parameters)


# --- Snippets (`ui/configureView` answers): the view as a tree of text, rows and stacks.


def text(line):
    return {"text": line}


def row(label, shown):
    return {"row": {"label": label, "value": shown}}


def stack(*children):
    return {"stack": list(children)}


def view(snippet, parameters, width=320, height=88):
    """A drawn view that shows `parameters` (a list of names): the host asks for none of them again."""
    return {"success": True, "parameters": parameters, "size": {"width": width, "height": height}, "snippet": snippet}


def no_view():
    """Nothing drawn: the host shows its default for these parameters."""
    return {"success": False, "parameters": [], "size": {"width": 0, "height": 0}}


# --- The loop.


def log(*words):
    """A line in the extension's log (stderr)."""
    print(*words, file=sys.stderr, flush=True)


class Context:
    """What `initialize` told the extension: its bundle, container, app groups and the user's locale."""

    def __init__(self, params):
        self.bundle_identifier = params.get("bundleIdentifier")
        self.extension_point = params.get("extensionPoint")
        self.bundle_path = params.get("bundlePath")
        self.container_path = params.get("containerPath")
        self.app_groups = {group["identifier"]: group["path"] for group in params.get("appGroups", [])}
        self.locale = params.get("locale", "en_US")


def serve(intents=None, configure_view=None):
    """Answers the host's requests until stdin ends or `exit` comes, then exits.

    - `intents`: a dict from intent class name (`AddNoteIntent`) to a handler object with `handle(intent, context)`
      and optionally `confirm(intent, context)` and `resolve_PARAMETER(intent, context)`. A parameter without its
      resolve method is accepted when it has a value and not required otherwise (as the Swift SDK does).
    - `configure_view`: for an Intents UI extension, `configure_view(interaction, parameters, context)` returning
      `view(...)` or `no_view()`.
    """
    intents = intents or {}
    channel = os.fdopen(os.dup(1), "wb", buffering=0)  # the protocol's stdout
    os.dup2(2, 1)  # fd 1 (and so print) now goes to the log
    sys.stdout = sys.stderr
    context = None
    shut_down = False

    def send(message):
        line = json.dumps(message, ensure_ascii=False, separators=(",", ":")) + "\n"
        channel.write(line.encode("utf-8"))

    def handler_for(intent):
        handler = intents.get(intent.get("name"))
        if handler is None:
            raise RequestError(NO_HANDLER, "no handler for %s" % intent.get("name"))
        return handler

    def field(params, name):
        if not isinstance(params, dict) or name not in params:
            raise RequestError(INVALID_PARAMS, "the params have no %s" % name)
        return params[name]

    def answer(method, params):
        nonlocal context, shut_down
        if method == "initialize":
            if field(params, "protocolVersion") != PROTOCOL_VERSION:
                raise RequestError(UNSUPPORTED_VERSION, "this extension speaks protocol version %d" % PROTOCOL_VERSION)
            context = Context(params)
            return {"protocolVersion": PROTOCOL_VERSION, "implementation": IMPLEMENTATION}
        if context is None or shut_down:
            raise RequestError(NOT_INITIALIZED, "%s before initialize (or after shutdown)" % method)
        if method == "shutdown":
            shut_down = True
            return {}
        if method == "intent/resolve":
            intent, parameter = field(params, "intent"), field(params, "parameter")
            resolve = getattr(handler_for(intent), "resolve_" + parameter, None)
            if resolve is not None:
                return resolve(intent, context)
            return success() if value(intent, parameter) is not None else not_required()
        if method == "intent/confirm":
            intent = field(params, "intent")
            confirm = getattr(handler_for(intent), "confirm", None)
            return confirm(intent, context) if confirm else ready()
        if method == "intent/handle":
            intent = field(params, "intent")
            return handler_for(intent).handle(intent, context)
        if method == "ui/configureView" and configure_view is not None:
            return configure_view(field(params, "interaction"), field(params, "parameters"), context)
        raise RequestError(METHOD_NOT_FOUND, "unknown method %s" % method)

    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            sys.exit(0)  # the host hung up
        try:
            message = json.loads(line)
        except ValueError:
            send({"jsonrpc": "2.0", "id": None, "error": {"code": PARSE_ERROR, "message": "not JSON"}})
            continue
        if not isinstance(message, dict) or "method" not in message:
            continue  # an answer to a request of ours: this runtime sends none
        method, params = message["method"], message.get("params") or {}
        if "id" not in message:  # a notification
            if method == "exit":
                sys.exit(0 if shut_down else 1)
            continue  # `$/cancelRequest`: every request here is answered at once, so there is nothing to cancel
        try:
            send({"jsonrpc": "2.0", "id": message["id"], "result": answer(method, params)})
        except RequestError as error:
            send({"jsonrpc": "2.0", "id": message["id"], "error": {"code": error.code, "message": error.message}})
        except Exception as error:  # a bug in a handler: say what it was, keep serving
            log("%s failed: %r" % (method, error))
            failure = {"code": HANDLER_FAILED, "message": "%s: %s" % (type(error).__name__, error)}
            send({"jsonrpc": "2.0", "id": message["id"], "error": failure})
