"""Users and roles for ``arouter serve``: the broker's PropertiesLoginModule, offline.

``--users-file artemis-users.properties`` holds ``user=password`` lines (plain, or hashed as
``ENC(iterations:salt:hash)`` the way ``artemis user add`` writes them: PBKDF2WithHmacSHA1 over
the UTF-8 password, hex salt and hash). ``--roles-file artemis-roles.properties`` holds
``role=user1,user2`` lines (split on ``,`` without trimming, as the broker does).

Both files are read as ``java.util.Properties.load`` reads them (ISO-8859-1, ``#``/``!`` comments,
``=``/``:``/blank separators, backslash continuations and escapes).

The order of a user's roles matters for key type ROLE_NAME (the first role wins, or the first
the key-filter finds). The broker inverts the roles file into a ``HashMap<user, HashSet<role>>``
while iterating the loaded ``Properties``, and the login module and the Subject pass the roles
through two more hash sets, so a user's roles come out in Java hash order, not in file order;
:func:`user_roles` reproduces that order exactly (tests/routing/test_role_order_java.py).

Passwords are only compared, never logged or kept in a repr.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass, field

from ..config.masked import is_enc_masked
from ..config.model import BrokerConfig
from ..config.nodes import first_descendant, java_bool, text_content
from ..errors import UsageError
from ..javacollections import broker_role_order
from ..safeio import MAX_SMALL_FILE_BYTES, read_regular

_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}


def _logical_lines(text: str) -> list[str]:
    """Properties.LineReader: join continuation lines, drop comments and blank lines."""
    natural = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    out: list[str] = []
    current: str | None = None
    for raw in natural:
        line = raw.lstrip(" \t\f")
        if current is None and (not line or line[0] in "#!"):
            continue
        trailing = len(line) - len(line.rstrip("\\"))
        continued = trailing % 2 == 1
        body = line[:-1] if continued else line
        current = body if current is None else current + body
        if not continued:
            out.append(current)
            current = None
    if current is not None:
        out.append(current)
    return out


def _unescape(text: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c != "\\" or i + 1 >= len(text):
            out.append(c)
            i += 1
            continue
        nxt = text[i + 1]
        if nxt == "u":
            digits = text[i + 2: i + 6]
            try:
                out.append(chr(int(digits, 16)))
            except ValueError:
                raise ValueError("malformed \\uxxxx encoding") from None
            i += 6
            continue
        out.append(_ESCAPES.get(nxt, nxt))
        i += 2
    # \uD83D\uDE00 are two Java chars that make one code point: Python holds it as one character
    return "".join(out).encode("utf-16-be", "surrogatepass").decode("utf-16-be", "surrogatepass")


def parse_properties(text: str) -> list[tuple[str, str]]:
    """``(key, value)`` pairs in file order (a repeated key keeps its first position, last value)."""
    values: dict[str, str] = {}
    for line in _logical_lines(text):
        i = 0
        n = len(line)
        while i < n:
            c = line[i]
            if c == "\\":
                i += 2
                continue
            if c in "=: \t\f":
                break
            i += 1
        key = line[:i]
        j = i
        while j < n and line[j] in " \t\f":
            j += 1
        if j < n and line[j] in "=:":
            j += 1
            while j < n and line[j] in " \t\f":
                j += 1
        values[_unescape(key)] = _unescape(line[j:])
    return list(values.items())


def read_properties(path: str, option: str) -> list[tuple[str, str]]:
    data = read_regular(path, limit=MAX_SMALL_FILE_BYTES, what=f"{option}: file")
    try:
        return parse_properties(data.decode("iso-8859-1"))
    except ValueError as exc:
        raise UsageError(f"{option}: {exc}", file=path) from None


def verify_password(stored: str, given: str) -> bool:
    """PropertiesLoginModule's check: ``ENC(iterations:salt:hash)`` is PBKDF2, anything else plain."""
    if is_enc_masked(stored):
        parts = stored[4:-1].split(":")
        if len(parts) != 3:
            return False  # a two-way masked password: the broker needs its codec key to read it
        try:
            iterations = int(parts[0])
            salt = bytes.fromhex(parts[1])
            expected = bytes.fromhex(parts[2])
        except ValueError:
            return False
        if iterations <= 0 or not expected:
            return False
        got = hashlib.pbkdf2_hmac("sha1", given.encode("utf-8"), salt, iterations, dklen=len(expected))
        return hmac.compare_digest(got, expected)
    return hmac.compare_digest(stored.encode("utf-8"), given.encode("utf-8"))


def user_roles(role_lines: list[tuple[str, str]], user: str) -> tuple[str, ...]:
    """The user's roles in the order the broker's router walks them: the roles ``Properties``
    (a ConcurrentHashMap), the user's ``HashSet``, the login module's ``HashSet<Principal>``, the
    Subject's list and ``getPrincipals(RolePrincipal.class)`` (see
    :func:`~artemis_routing_cli.javacollections.broker_role_order`)."""
    return broker_role_order(role_lines, user).roles


ROLES_NEED_USERS = ("--roles-file needs --users-file: the broker only knows a client's roles once it has "
                    "authenticated it (without authentication ROLE_NAME keys are NULL)")


def check_files(users_file: str | None, roles_file: str | None) -> None:
    """Roles come from the login that validates the user (SecurityStoreImpl.authenticate sets the
    connection's Subject); without a user check there is no Subject, so no roles."""
    if roles_file and not users_file:
        raise UsageError(ROLES_NEED_USERS)


def security_enabled(cfg: BrokerConfig) -> bool:
    """``<security-enabled>`` as FileConfigurationParser reads it: the first element of that name
    under ``<core>``, ``Boolean.parseBoolean`` of its trimmed text; true when absent. With false,
    SecurityStoreImpl.authenticate validates nobody and sets no Subject."""
    element = first_descendant(cfg.core, "security-enabled") if cfg.core is not None else None
    return True if element is None else java_bool(text_content(element))


@dataclass(frozen=True)
class Identity:
    """Who a connection authenticated as: the validated user and its roles."""

    user: str
    roles: tuple[str, ...] = ()


@dataclass
class Authenticator:
    """Validates users against the properties files; ``users`` None means no authentication."""

    users: dict[str, str] | None = field(default=None, repr=False)
    roles: list[tuple[str, str]] = field(default_factory=list)

    @classmethod
    def from_files(cls, users_file: str | None, roles_file: str | None) -> Authenticator:
        check_files(users_file, roles_file)
        users = dict(read_properties(users_file, "--users-file")) if users_file else None
        roles = read_properties(roles_file, "--roles-file") if roles_file else []
        return cls(users, roles)

    @property
    def enabled(self) -> bool:
        return self.users is not None

    def roles_of(self, user: str | None) -> tuple[str, ...]:
        if user is None or not self.roles:
            return ()
        return user_roles(self.roles, user)

    def validate(self, user: str | None, password: str | None) -> Identity | None:
        """The identity for valid credentials, else None (also when authentication is off and
        no user was given). Without ``--users-file`` the claimed user is taken as is."""
        if self.users is None:
            return Identity(user, self.roles_of(user)) if user is not None else None
        if user is None:
            return None
        stored = self.users.get(user)
        if stored is None or not verify_password(stored, password or ""):
            return None
        return Identity(user, self.roles_of(user))
