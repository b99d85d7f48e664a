"""Hooks of the fuzzing run (tools/fuzz/schemathesis.toml). No hook turns a check off or changes
what a check expects.

The player the fuzzer acts as: tools/fuzz/src/fuzz.ts registers it and the config logs in as it
(auth.dynamic: a 401 logs in again, e.g. after the fuzzer logged its token out). Its login and its
id must keep working for the whole run, so a valid e-mail or password change the fuzzer sends sets
the player's own e-mail or password again, and an account deletion the fuzzer sends with the
player's token deletes a new account registered for it instead. Were the player itself deleted and
registered again, it would come back with a new id, and every room it had created would answer
its requests with 403 from then on.

Test data: in the requests generated as valid, the ids that must be the caller's own (a room's
createdBy.id, a join's or leave's players.playerId, a reward's playerId and the id in its path)
are the player's, so those requests reach the rooms and rewards services instead of stopping at
403. Every second game record generated as valid is read with the ids of a game the player
finished before the run against a second player, from that player's history (fuzz.ts plays it);
every second login generated as valid is the player's own e-mail and password; and every second
room deletion generated as valid (outside the stateful phase, whose ids come from earlier answers)
names a room the player created (the one it is in, or a new one). So the fuzzer sees both found
and not found, a login that succeeds and one that fails (SPEC §8 answers 400 to credentials that
match no account), a deletion that succeeds and one that is refused. Requests generated as
invalid keep what was generated.

Two rules of the API that JSON Schema cannot state, both written in the document's descriptions:
the confirmation of a password equals the password (SPEC §5), and a new password is not one of
the 10,000 most common (DECISIONS). Generated bodies are made to follow them before they are sent.

Schemathesis judges every request again after these hooks changed it, so a request that is still
invalid counts as invalid, and one that became valid as valid.
"""

import base64
import json
import os
import re
import secrets
import urllib.error
import urllib.request

import schemathesis

BASE_URL = os.environ["FUZZ_BASE_URL"]
PLAYER = {
    "name": os.environ["FUZZ_NAME"],
    "email": os.environ["FUZZ_EMAIL"],
    "password": os.environ["FUZZ_PASSWORD"],
}
PLAYER_ID = os.environ["FUZZ_PLAYER_ID"]

# The auth service's list, the same file it refuses passwords from (compared in lower case).
with open("apps/auth/src/assets/common-passwords.json", encoding="utf-8") as file:
    COMMON_PASSWORDS = {password.lower() for password in json.load(file)}
# A game the fuzzing player finished before the run, and its opponent, whose history keeps it.
GAME_USER_ID = os.environ["FUZZ_GAME_USER_ID"]
GAME_ID = os.environ["FUZZ_GAME_ID"]
GAME_RECORD = ("GET", "/api/rewards/{userId}/games/{gameId}")
LOGIN = ("POST", "/api/users/login")
ROOM_DELETE = ("DELETE", "/api/rooms/{id}/delete")
# How many requests of each operation with real test data were generated as valid.
valid_cases = {GAME_RECORD: 0, LOGIN: 0, ROOM_DELETE: 0}
PASSWORD = re.compile(r"^[A-Za-z0-9]{6,16}$")
NEW_PASSWORD_OPERATIONS = {
    ("POST", "/api/users"),
    ("PATCH", "/api/users/edit"),
    ("POST", "/api/users/reset-password"),
}


def _call(method, path, body=None, authorization=None):
    """(status, the JSON answer or None) of a request to the stack."""
    headers = {"content-type": "application/json"}
    if authorization:
        headers["authorization"] = authorization
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(BASE_URL + path, data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        return error.code, None


def _own_room(authorization):
    """The id of a room the player created and is in: the one it is in, or a new waiting room.
    None when it is in another player's room, or its token is refused."""
    _, room = _call("GET", "/api/rooms/mine", authorization=authorization)
    if room is None:
        created_by = {"id": PLAYER_ID, "name": PLAYER["name"]}
        body = {"gameType": "quick-battle", "createdBy": created_by, "duration": 32, "passCode": ""}
        _, room = _call("POST", "/api/rooms/", body, authorization)
    if room is None or room.get("createdBy", {}).get("id") != PLAYER_ID:
        return None
    return room["_id"]


def _new_account_token():
    """The token of a new account, named and registered as the player was (valid by SPEC §5): its
    e-mail address has the player's domain (fuzz.ts takes it from the bots' emailOf)."""
    name = "gone" + secrets.token_hex(3)
    email = f"{name}@{PLAYER['email'].split('@')[1]}"
    password = PLAYER["password"]
    body = {"name": name, "email": email, "password": password, "confirmedPassword": password}
    status, user = _call("POST", "/api/users/", body)
    if user is None:
        hint = (
            ": every request comes from one address, so the stack needs the limits of"
            " SHARED_ADDRESS_LIMITS (tools/scripts/lib/stack.ts), as the one fuzz.ts starts has"
            if status == 429
            else ""
        )
        raise RuntimeError(f"registering {email} for an account deletion answered {status}{hint}")
    return user["token"]


def _uncommon(password):
    """The password made uncommon, still 6 to 16 letters or digits."""
    candidate = password
    suffix = 0
    while candidate.lower() in COMMON_PASSWORDS:
        candidate = password[:13] + f"Q{suffix:02d}"
        suffix += 1
    return candidate


def _caller_id(case):
    """The user id (`sub`) of the bearer token the case carries, if any."""
    authorization = (case.headers or {}).get("Authorization") or ""
    if not authorization.startswith("Bearer "):
        return None
    try:
        payload = authorization[len("Bearer ") :].split(".")[1]
        return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))["sub"]
    except (IndexError, KeyError, ValueError):
        return None


def _linked(case):
    """Whether the case is a step of the stateful phase, whose ids come from earlier answers."""
    return case.meta.phase.name == "stateful"


def _test_data(case, operation):
    caller = _caller_id(case)
    body = case.body
    # Whatever else the request holds: the player's account is never the one deleted.
    if operation == ("DELETE", "/api/users/delete") and caller == PLAYER_ID:
        case.headers["Authorization"] = f"Bearer {_new_account_token()}"
    if case.meta is None or not case.meta.generation.mode.is_positive:
        return
    if operation in valid_cases:
        valid_cases[operation] += 1
        if valid_cases[operation] % 2 == 0:
            if operation == GAME_RECORD and isinstance(case.path_parameters, dict):
                case.path_parameters.update(userId=GAME_USER_ID, gameId=GAME_ID)
            elif operation == LOGIN and isinstance(body, dict):
                body.update(email=PLAYER["email"], password=PLAYER["password"])
            elif operation == ROOM_DELETE and caller == PLAYER_ID and not _linked(case):
                room_id = _own_room(case.headers["Authorization"])
                if room_id is not None and isinstance(case.path_parameters, dict):
                    case.path_parameters["id"] = room_id
    if caller is None:
        return
    if operation == ("POST", "/api/rooms") and isinstance(body, dict):
        if isinstance(body.get("createdBy"), dict):
            body["createdBy"]["id"] = caller
    elif operation == ("PATCH", "/api/rooms/{id}/edit") and isinstance(body, dict):
        if isinstance(body.get("players"), dict):
            body["players"]["playerId"] = caller
    elif operation == ("POST", "/api/rewards") and isinstance(body, dict):
        body["playerId"] = caller
    elif operation in {("PATCH", "/api/rewards/{id}/edit"), ("DELETE", "/api/rewards/{id}/delete")}:
        if isinstance(case.path_parameters, dict):
            case.path_parameters["id"] = caller
    elif operation == ("PATCH", "/api/users/edit") and isinstance(body, dict):
        # The login keeps working: the player "changes" to its own e-mail or password.
        for field in ("email", "password"):
            if isinstance(body.get(field), str):
                body[field] = PLAYER[field]


@schemathesis.hook
def before_call(context, case, kwargs):
    operation = (case.operation.method.upper(), case.operation.path)
    _test_data(case, operation)
    body = case.body
    if operation not in NEW_PASSWORD_OPERATIONS or not isinstance(body, dict):
        return
    password = body.get("password")
    if isinstance(password, str) and PASSWORD.match(password):
        body["password"] = password = _uncommon(password)
    if "confirmedPassword" in body and isinstance(password, str):
        body["confirmedPassword"] = password
