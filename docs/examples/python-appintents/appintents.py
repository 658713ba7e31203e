"""An App Intents extension runtime in Python, written from docs/PROTOCOL.md alone (standard library only).

The host speaks JSON-RPC 2.0 to the extension, one JSON object per line: its requests on stdin, the answers on
stdout. An App Intents extension answers `initialize`, `appIntent/perform`, `appIntent/options`, `entity/query`,
`shutdown` and the notification `exit`; while a perform is pending it may ask the user questions through the host
(`host/requestValue`, `host/requestDisambiguation`, `host/requestConfirmation`,
`host/requestParameterConfirmation`), and it must keep reading stdin while it waits for their answers: the host may
send `entity/query` or `appIntent/options` meanwhile, to read the user's answer.

So a handler that asks is a generator: it yields a question and gets the answer back where it yielded, while this
loop goes on serving the host's other requests. Nothing here uses threads.

    import appintents as ai

    class OrderFuel:                                       # one handler per intent identifier
        def perform(self, intent, context):                # a function, or a generator that yields questions
            location = intent.value("location")
            if location is None:
                return ai.needs_value("location", "Where should the order be?")
            yield ai.request_confirmation("Order a full tank?", action_name="order")   # "no" raises HostError
            return ai.result(dialog="Ordered.", value=ai.string("order-17"))

        def options_location(self, intent, context):       # optional: the parameter's options provider
            return ai.options([ai.enum("home"), ai.enum("work")])

    class Vehicles:                                        # one query per AppEntity type
        def suggested(self, context): ...                  # each returns a list of ai.entity(...)
        def matching(self, string, context): ...
        def entities_for(self, identifiers, context): ...
        def all(self, context): ...

    ai.serve(intents={"OrderFuelIntent": OrderFuel()}, queries={"VehicleEntity": Vehicles()}, metadata=METADATA)

`serve` keeps the real stdout for the protocol and points file descriptor 1 at stderr, so a stray `print` goes to
the extension's log (`<home>/Logs/<bundle id>.log`), never into the protocol stream.
"""

import hashlib
import json
import os
import sys
import traceback
import types

# What App Intents shares with every extension (the version, the generic error codes, RequestError, typed values,
# snippets, the log, the context of `initialize`) comes from the Notes example's runtime, docs/examples/python.
from intenthost import (  # noqa: F401  (re-exported: `ai.string`, `ai.text`, ...)
    HANDLER_FAILED, INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, NO_HANDLER, NOT_INITIALIZED,
    PARSE_ERROR, PROTOCOL_VERSION, UNSUPPORTED_VERSION, RequestError, boolean, integer, log, row, stack, string, text)
import intenthost

IMPLEMENTATION = "appintents.py 1.0"

# The error codes App Intents adds (docs/PROTOCOL.md, "Errors").
REQUEST_CANCELLED = -32800
NOT_ALLOWED_NOW = -33005
BUSY = -33006
USER_CANCELLED = -33007

ERROR_NAMES = {
    PARSE_ERROR: "parseError", INVALID_REQUEST: "invalidRequest", METHOD_NOT_FOUND: "methodNotFound",
    INVALID_PARAMS: "invalidParams", INTERNAL_ERROR: "internalError", REQUEST_CANCELLED: "requestCancelled",
    NO_HANDLER: "noHandler", HANDLER_FAILED: "handlerFailed", NOT_INITIALIZED: "notInitialized",
    UNSUPPORTED_VERSION: "unsupportedVersion", NOT_ALLOWED_NOW: "notAllowedNow", BUSY: "busy",
    USER_CANCELLED: "userCancelled",
}


class IntentError(Exception):
    """Raise it from `perform` for an error the user hears: `reason` is Apple's `localizedStringResource` (the
    answer's `data`). An error of any other type is answered without `data`, and the host says Apple's sentence for
    an error without a reason."""

    def __init__(self, reason):
        super().__init__(reason)
        self.reason = reason


class HostError(Exception):
    """The host's error answer to one of the extension's questions: `code` (USER_CANCELLED when the user said no to
    `request_confirmation` or cancelled), `name` ("userCancelled") and `message`. Raised where the handler yielded
    the question; a perform that lets USER_CANCELLED through ends the run as the user's cancel."""

    def __init__(self, error):
        self.code = error.get("code")
        self.message = error.get("message", "")
        self.name = ERROR_NAMES.get(self.code, str(self.code))
        super().__init__("%s (%s): %s" % (self.name, self.code, self.message))


# --- Values (docs/PROTOCOL.md, "Values and intents"): every value carries its type.


def enum(case):
    """An AppEnum value: the case's identifier."""
    return {"type": "enum", "value": case}


def entity(identifier, display, properties=None):
    """An AppEntity as `entity/query` answers it: `{"identifier", "displayString", "properties"}`; `properties` maps
    a property's name to a typed value."""
    found = {"identifier": identifier, "displayString": display}
    if properties:
        found["properties"] = properties
    return found


def entity_value(found):
    """An AppEntity as a typed value, for a question's candidates or perform's `value`."""
    return {"type": "object", "value": found}


def metadata_digest(document):
    """The digest `initialize` reports: SHA-256 of the document's canonical encoding (docs/APPINTENTS.md, "The
    canonical encoding and the digest"). `document` must spell out every key the host models, defaults included."""
    canonical = json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


# --- Perform's answers.


def result(dialog=None, value=None, snippet=None):
    """The intent is done: the host says `dialog` (or "Done."), draws `snippet`, and gives `value` in --json."""
    answer = {"kind": "result"}
    for key, given in (("dialog", dialog), ("value", value), ("snippet", snippet)):
        if given is not None:
            answer[key] = given
    return answer


def needs_value(parameter, dialog=None):
    """Apple's `needsValueError`: the host asks for `parameter` and performs again, `attempt` + 1."""
    answer = {"kind": "needsValue", "parameter": parameter}
    if dialog is not None:
        answer["dialog"] = dialog
    return answer


def options(items, sections=None, default=None):
    """An options provider's answer: `items` (typed values), `sections` [(title, items)], `default`."""
    answer = {"items": list(items)}
    if sections:
        answer["sections"] = [
            {"items": list(section_items)} | ({"title": title} if title else {}) for title, section_items in sections]
    if default is not None:
        answer["default"] = default
    return answer


# --- Questions to the user, while perform runs: yield one, get its answer.


class Question:
    """A request to the host; `yield` it from a handler. The answer is its result (see each function), or a
    `HostError` raised where it was yielded."""

    def __init__(self, method, params):
        self.method = method
        self.params = params


def _with_dialog(params, dialog):
    if dialog is not None:
        params["dialog"] = dialog
    return params


def request_value(parameter, dialog=None):
    """`$parameter.requestValue(_:)`: the answer's `value` is the parameter's typed value."""
    return Question("host/requestValue", _with_dialog({"parameter": parameter}, dialog))


def request_disambiguation(parameter, candidates, dialog=None):
    """`$parameter.requestDisambiguation(among:dialog:)`: the answer's `value` is one of the typed `candidates`."""
    return Question(
        "host/requestDisambiguation", _with_dialog({"parameter": parameter, "candidates": candidates}, dialog))


def request_parameter_confirmation(parameter, value, dialog=None):
    """`$parameter.requestConfirmation(for:dialog:)`: the answer's `confirmed` is true for yes, false for no."""
    return Question(
        "host/requestParameterConfirmation", _with_dialog({"parameter": parameter, "value": value}, dialog))


def request_confirmation(dialog=None, action_name=None, show_prompt=True, snippet=None):
    """The intent's `requestConfirmation(...)`: `{}` for yes; no raises HostError(USER_CANCELLED)."""
    params = _with_dialog({"showPrompt": show_prompt}, dialog)
    if action_name is not None:
        params["actionName"] = action_name
    if snippet is not None:
        params["snippet"] = snippet
    return Question("host/requestConfirmation", params)


def donate(intent, parameters=None, identifier=None, group=None):
    """`IntentDonationManager.shared.donate(intent:)`: keeps what the user did (the App Intent `intent`, one the app's
    Metadata.appintents declares, with its typed `parameters`) so that the user can make a shortcut of it
    (`assistant shortcuts suggested`). Not a question to the user: the host answers at once. The answer's
    `identifier` names the donation; what the host refuses raises HostError(INVALID_PARAMS)."""
    params = {"appIntent": {"identifier": intent, "parameters": parameters or {}}}
    if identifier is not None:
        params["identifier"] = identifier
    if group is not None:
        params["groupIdentifier"] = group
    return Question("host/donate", params)


class Together:
    """Several questions sent at once (the host takes one at a time and refuses the others with BUSY: for tests).
    Yielding it gives back a list of `Answer`s, in order; nothing is raised."""

    def __init__(self, *questions):
        self.questions = list(questions)


class Answer:
    """The host's answer to one question of a `Together`: `result` (a dict) or `error` (a HostError)."""

    def __init__(self, message):
        self.result = message.get("result")
        self.error = HostError(message["error"]) if "error" in message else None


# Yield it to never answer (for tests: a perform that hangs until the host's deadline kills the extension).
HANG = object()


# --- What a handler is given.


class Context(intenthost.Context):
    """What `initialize` told the extension: `bundle_identifier`, `bundle_path`, `container_path`, `app_groups`
    (identifier -> folder) and the user's `locale`."""

    def group(self, identifier):
        """The folder of one of the bundle's app groups, as `initialize` gave it."""
        if identifier not in self.app_groups:
            raise RequestError(INTERNAL_ERROR, "%s is not one of this extension's app groups" % identifier)
        return self.app_groups[identifier]


class Intent:
    """The intent of `appIntent/perform` or `appIntent/options`: `identifier` (its type), its typed `parameters`,
    and for perform `attempt` (from 1) and `mode` (`background` or `foreground`)."""

    def __init__(self, params):
        intent = _field(params, "intent")
        if not isinstance(intent, dict) or not isinstance(intent.get("identifier"), str):
            raise RequestError(INVALID_PARAMS, "params.intent has no identifier")
        self.identifier = intent["identifier"]
        self.parameters = intent.get("parameters") or {}
        self.attempt = params.get("attempt", 1)
        self.mode = params.get("mode", "background")

    def typed(self, name):
        """The typed value of a parameter (`{"type": ..., "value": ...}`), or None when it has none."""
        return self.parameters.get(name)

    def value(self, name):
        """The plain value of a parameter (`"home"`, `12`, an entity's `{"identifier", ...}`), or None."""
        typed = self.parameters.get(name)
        return None if typed is None else typed.get("value")


def _field(params, name):
    if not isinstance(params, dict) or name not in params:
        raise RequestError(INVALID_PARAMS, "the params have no %s" % name)
    return params[name]


# --- The loop.


def _same(answer):
    return answer


class _Task:
    """A request of the host's being served by a generator: the questions it waits for."""

    def __init__(self, request_id, what, generator, finish):
        self.request_id = request_id
        self.what = what
        self.generator = generator
        self.finish = finish  # makes the request's result from what the generator returned
        self.waiting = {}  # our question id -> its index in `answers`
        self.answers = []
        self.together = False


class _Runtime:
    def __init__(self, intents, queries, metadata):
        self.intents = intents or {}
        self.queries = queries or {}
        self.digest = metadata_digest(metadata) if metadata is not None else None
        self.channel = os.dup(1)  # the protocol's stdout
        os.dup2(2, 1)  # fd 1 (and so print) now goes to the log
        sys.stdout = sys.stderr
        self.context = None
        self.shut_down = False
        self.next_question = 1
        self.tasks = {}  # the host's request id -> _Task
        self.questions = {}  # our question id -> _Task

    def send(self, message):
        data = (json.dumps(message, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")
        while data:
            data = data[os.write(self.channel, data):]

    def reply(self, request_id, answer):
        self.send({"jsonrpc": "2.0", "id": request_id, "result": answer})

    def reply_error(self, request_id, code, message, data=None):
        error = {"code": code, "message": message}
        if data is not None:
            error["data"] = data
        self.send({"jsonrpc": "2.0", "id": request_id, "error": error})

    def fail(self, request_id, what, error):
        """Answers the request `what` (`TakeItemIntent.perform()`, a method) whose handler raised `error`."""
        if isinstance(error, RequestError):
            self.reply_error(request_id, error.code, error.message)
        elif isinstance(error, IntentError):
            self.reply_error(request_id, HANDLER_FAILED, "%s threw IntentError" % what, error.reason)
        elif isinstance(error, HostError) and error.code == USER_CANCELLED:
            self.reply_error(request_id, USER_CANCELLED, "the user cancelled: %s" % error.message)
        else:  # a bug, or an error without a reason for the user: the message is for the log only
            log("%s failed: %s" % (what, "".join(traceback.format_exception(error)).rstrip()))
            self.reply_error(request_id, HANDLER_FAILED, "%s: %s" % (type(error).__name__, error))

    def run(self):
        """Serves each line of stdin as it comes; exits at its end (the host hung up)."""
        for line in iter(sys.stdin.buffer.readline, b""):
            self.received(line)
        sys.exit(0)

    def received(self, line):
        try:
            message = json.loads(line)
        except ValueError:
            self.send({"jsonrpc": "2.0", "id": None, "error": {"code": PARSE_ERROR, "message": "not JSON"}})
            return
        if not isinstance(message, dict):
            return
        if "method" not in message:
            self.answered(message)
        elif "id" not in message:
            self.notified(message["method"], message.get("params") or {})
        else:
            self.start(message["id"], message["method"], message.get("params") or {})

    def notified(self, method, params):
        if method == "exit":
            sys.exit(0 if self.shut_down else 1)
        if method == "$/cancelRequest":
            task = self.tasks.get(params.get("id"))
            if task is not None:
                self.drop(task)
                self.reply_error(task.request_id, REQUEST_CANCELLED, "cancelled by $/cancelRequest")

    def start(self, request_id, method, params):
        what = method
        try:
            what, run, finish = self.dispatch(method, params)
            work = run()
        except Exception as error:
            self.fail(request_id, what, error)
            return
        if isinstance(work, types.GeneratorType):
            task = _Task(request_id, what, work, finish)
            self.tasks[request_id] = task
            self.advance(task)
        else:
            try:
                self.reply(request_id, finish(work))
            except Exception as error:
                self.fail(request_id, what, error)

    def advance(self, task, value=None, error=None):
        """Runs the task's generator to its next question (sent) or its end (answered)."""
        try:
            step = task.generator.throw(error) if error is not None else task.generator.send(value)
        except StopIteration as done:
            self.drop(task)
            try:
                self.reply(task.request_id, task.finish(done.value))
            except Exception as failure:
                self.fail(task.request_id, task.what, failure)
            return
        except Exception as failure:
            self.drop(task)
            self.fail(task.request_id, task.what, failure)
            return
        if step is HANG:
            return  # parked: the loop goes on reading, and the host's deadline ends it
        task.together = isinstance(step, Together)
        questions = step.questions if task.together else [step]
        task.answers = [None] * len(questions)
        messages = []
        for index, question in enumerate(questions):
            question_id = self.next_question
            self.next_question += 1
            task.waiting[question_id] = index
            self.questions[question_id] = task
            messages.append({"jsonrpc": "2.0", "id": question_id, "method": question.method, "params": question.params})
        for message in messages:
            self.send(message)

    def answered(self, message):
        """An answer to one of our questions: the task goes on once all its questions are answered."""
        task = self.questions.pop(message.get("id"), None)
        if task is None:
            return  # a question given up on
        task.answers[task.waiting.pop(message["id"])] = Answer(message)
        if task.waiting:
            return
        if task.together:
            self.advance(task, value=task.answers)
        elif task.answers[0].error is not None:
            self.advance(task, error=task.answers[0].error)
        else:
            self.advance(task, value=task.answers[0].result)

    def drop(self, task):
        self.tasks.pop(task.request_id, None)
        for question_id in task.waiting:
            self.questions.pop(question_id, None)
        task.waiting = {}

    def dispatch(self, method, params):
        """(what, run, finish): the request for messages (`TakeItemIntent.perform()`), what runs its handler (and returns
        its value, or a generator), and what makes the request's result of what the handler returns."""
        if method == "initialize":
            if _field(params, "protocolVersion") != PROTOCOL_VERSION:
                raise RequestError(UNSUPPORTED_VERSION, "this extension speaks protocol version %d" % PROTOCOL_VERSION)
            self.context = Context(params)
            answer = {"protocolVersion": PROTOCOL_VERSION, "implementation": IMPLEMENTATION}
            if self.digest is not None:
                answer["appIntentsMetadataDigest"] = self.digest
            return method, lambda: answer, _same
        if self.context is None or self.shut_down:
            raise RequestError(NOT_INITIALIZED, "%s before initialize (or after shutdown)" % method)
        if method == "shutdown":
            self.shut_down = True
            return method, dict, _same
        if method == "appIntent/perform":
            intent = Intent(params)
            handler = self.handler(intent)
            return intent.identifier + ".perform()", lambda: handler.perform(intent, self.context), _same
        if method == "appIntent/options":
            intent, parameter = Intent(params), _field(params, "parameter")
            what = "the options of %s.%s" % (intent.identifier, parameter)
            provider = getattr(self.handler(intent), "options_" + parameter, None)
            return what, lambda: options([]) if provider is None else provider(intent, self.context), _same
        if method == "entity/query":
            return method, lambda: self.query(params), lambda entities: {"entities": list(entities)}
        raise RequestError(METHOD_NOT_FOUND, "unknown method %s" % method)

    def handler(self, intent):
        handler = self.intents.get(intent.identifier)
        if handler is None:
            raise RequestError(NO_HANDLER, "no handler for %s" % intent.identifier)
        return handler

    def query(self, params):
        query = self.queries.get(_field(params, "entityType"))
        by = _field(params, "by")
        if by == "identifiers":
            method, arguments = "entities_for", (_field(params, "identifiers"),)
        elif by == "string":
            method, arguments = "matching", (_field(params, "string"),)
        elif by in ("suggested", "all"):
            method, arguments = by, ()
        else:
            raise RequestError(INVALID_PARAMS, "params.by: %r is not identifiers, suggested, string or all" % by)
        answer = getattr(query, method, None)
        return [] if answer is None else answer(*arguments, self.context)


def serve(intents=None, queries=None, metadata=None):
    """Answers the host's requests until stdin ends or `exit` comes, then exits.

    - `intents`: a dict from an intent's identifier (`OrderFuelIntent`) to a handler with `perform(intent, context)`
      and optionally `options_PARAMETER(intent, context)`, each a function or a generator that yields questions.
    - `queries`: a dict from an AppEntity type to its query: `entities_for(identifiers, context)`,
      `suggested(context)`, `matching(string, context)`, `all(context)`, each optional, each a list of `entity(...)`.
    - `metadata`: the App Intents metadata the code registers, every key spelt out: `initialize` reports its digest,
      so the host names an installed `extract.actionsdata` that says something else. None reports none.
    """
    _Runtime(intents, queries, metadata).run()
