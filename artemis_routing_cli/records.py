"""``@record``: a dataclass that compiles nothing when its class is created.

``dataclasses.dataclass`` writes each method as source text and compiles it when the class is
created: about a millisecond a class, and ``validate`` creates some eighty at start-up (its
model, the filter and regex syntax trees, options, diagnostics), most of which a given run never
instantiates. ``record`` lets the dataclass machinery do the bookkeeping (fields, slots,
``__match_args__``) and writes no source at class creation:

- ``__init__`` is the one dataclass would write (same parameters, defaults, default factories,
  and ``object.__setattr__`` for a frozen class), compiled when the class is first instantiated;
  a default factory with a ``__record_constant__`` attribute always returns that (immutable)
  object, which is then the parameter's default and the factory is never called;
  a class with ``InitVar``, ``init=False`` or keyword-only fields gets dataclass's own, compiled
  at once;
- ``cls._record_build(...)`` is ``cls(...)`` (for the same fields), for code that makes many objects: a
  frozen record whose fields are all slots is made filled in one ``__class__`` assignment fewer;
- frozenness is a shared ``__setattr__``/``__delattr__`` raising ``FrozenInstanceError`` as
  dataclass's do (and, with slots, the ``__getstate__``/``__setstate__`` pickling needs);
- ``__eq__`` compares the ``compare`` fields of two objects of the same class (else
  NotImplemented), ``__hash__`` hashes the ``hash`` fields (frozen only; a non-frozen record is
  unhashable), ``__repr__`` is ``Name(field=value, ...)`` over the ``repr`` fields (``...`` on
  recursion).

Methods the class writes itself are kept, as dataclass keeps them. ``dataclasses.fields``,
``replace``, ``asdict`` and ``is_dataclass`` work as on any dataclass (its
``__dataclass_params__`` say eq, repr and frozen are not generated: they are not, here; a frozen
record is marked by ``__record_frozen__``).
"""

from __future__ import annotations

import dataclasses
import reprlib
from collections.abc import Callable
from operator import attrgetter
from typing import Any, TypeVar

T = TypeVar("T")
_MISSING = dataclasses.MISSING
_MEMBER = type(type("_Slotted", (), {"__slots__": ("x",)}).__dict__["x"])  # a slot's descriptor


class _Factory:
    """The default of a parameter whose field has a default factory (dataclass shows ``<factory>``)."""

    def __repr__(self) -> str:
        return "<factory>"


_FACTORY = _Factory()


def record(cls: type[T] | None = None, /, *, frozen: bool = False,
           slots: bool = False) -> Any:
    """``@dataclass`` / ``@dataclass(frozen=..., slots=...)`` with eq and repr, made cheaply."""
    def wrap(c: type[T]) -> type[T]:
        return _record(c, frozen, slots)
    return wrap if cls is None else wrap(cls)


def _key(names: tuple[str, ...]) -> Callable[[object], tuple[Any, ...]]:
    """The tuple of these attributes of an object (attrgetter gives a bare value for one name)."""
    if not names:
        return lambda obj: ()
    get = attrgetter(*names)
    if len(names) == 1:
        return lambda obj: (get(obj),)
    return get  # type: ignore[return-value]


def _plain_init(cls: type) -> bool:
    """Whether an ``__init__`` of positional-or-keyword fields only (what ``_make_init`` writes) is dataclass's."""
    for name, f in cls.__dict__.get("__annotations__", {}).items():
        default = cls.__dict__.get(name, _MISSING)
        if isinstance(default, dataclasses.Field) and (not default.init or default.kw_only is True):
            return False
        if isinstance(f, str) and ("InitVar" in f or "KW_ONLY" in f):
            return False
        if isinstance(f, dataclasses.InitVar) or f is dataclasses.KW_ONLY:
            return False
    return True


def _record(cls: type[T], frozen: bool, slots: bool) -> type[T]:
    body = cls.__dict__
    own = {name for name in ("__repr__", "__eq__", "__init__") if name in body}
    class_hash = body.get("__hash__", _MISSING)
    explicit_hash = not (class_hash is _MISSING or (class_hash is None and "__eq__" in body))
    lazy = _plain_init(cls)
    for base in cls.__mro__[1:]:
        if hasattr(base, "__dataclass_fields__"):
            base_frozen = getattr(base, "__record_frozen__", base.__dataclass_params__.frozen)  # type: ignore[attr-defined]
            if base_frozen != frozen:
                raise TypeError(f"cannot inherit {'' if frozen else 'non-'}frozen dataclass from a "
                                f"{'non-' if frozen else ''}frozen one")
            lazy = lazy and not any(not f.init or f.kw_only is True for f in dataclasses.fields(base))
    if frozen and lazy:
        for name in ("__setattr__", "__delattr__"):
            if name in body:
                raise TypeError(f"Cannot overwrite attribute {name} in class {cls.__name__}")
    if lazy and not body.get("__doc__"):
        cls.__doc__ = "-"  # dataclass would work one out from the signature: done below without inspect
    made: Any = dataclasses.dataclass(cls, init=not lazy, repr=False, eq=False, frozen=frozen and not lazy,
                                      slots=slots)
    made.__record_frozen__ = frozen
    fields = dataclasses.fields(made)
    shown = tuple(f.name for f in fields if f.repr)
    compared = _key(tuple(f.name for f in fields if f.compare))
    hashed = _key(tuple(f.name for f in fields if (f.compare if f.hash is None else f.hash)))

    def __repr__(self: Any) -> str:
        return f"{self.__class__.__qualname__}({', '.join(f'{n}={getattr(self, n)!r}' for n in shown)})"

    def __eq__(self: Any, other: object) -> bool:
        if other.__class__ is self.__class__:
            return compared(self) == compared(other)
        return NotImplemented

    def __hash__(self: Any) -> int:
        return hash(hashed(self))

    methods: dict[str, Any] = {"__repr__": reprlib.recursive_repr("...")(__repr__), "__eq__": __eq__}
    if not explicit_hash:
        methods["__hash__"] = __hash__ if frozen else None
    if lazy:
        if made.__doc__ == "-":
            made.__doc__ = made.__name__ + _text_signature(fields)
        if "__init__" not in own:
            methods["__init__"] = _first_init(made, fields, frozen)
            if "_record_build" in body:  # the name is the builder's: a method of the class's own would be lost
                raise TypeError(f"{made.__qualname__}: _record_build is a name @record gives the class")
            made._record_build = _first_build(made, fields, frozen)
        if frozen:
            methods.update(_frozen_methods(made, fields, slots))
    for name, fn in methods.items():
        if name in own:
            continue
        if fn is not None:
            fn.__qualname__ = f"{made.__qualname__}.{name}"
        setattr(made, name, fn)
    return made  # type: ignore[no-any-return]


def _text_signature(fields: tuple[dataclasses.Field[Any], ...]) -> str:
    """The class's signature as dataclass's default docstring shows it: ``(x: 'int', y: 'str' = 'a')``."""
    parts = []
    for f in fields:
        shown = repr(f.type) if isinstance(f.type, str) else getattr(f.type, "__name__", f.type)
        text = f"{f.name}: {shown}"
        if f.default is not _MISSING:
            text += f" = {f.default!r}"
        elif f.default_factory is not _MISSING:
            text += " = <factory>"
        parts.append(text)
    return f"({', '.join(parts)})"


def _first_init(cls: Any, fields: tuple[dataclasses.Field[Any], ...], frozen: bool) -> Callable[..., None]:
    """An ``__init__`` that, on the first object, puts the real one in its place and calls it."""
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        init = _make_init(cls, fields, frozen)
        cls.__init__ = init
        init(self, *args, **kwargs)
    return __init__


def _assignments(cls: Any, fields: tuple[dataclasses.Field[Any], ...],
                 frozen: bool) -> tuple[dict[str, Any], list[str], list[str], list[str] | None]:
    """The parts of a written ``__init__``: its globals, its parameters (after ``self``), the
    statements that set the fields as dataclass's does, and (None unless every field is a slot of a
    frozen record) the same as plain assignments, for an object of :func:`_open_twin`."""
    env: dict[str, Any] = {"_FACTORY": _FACTORY, "_setattr": object.__setattr__}
    params, lines, plain = [], [], []
    for n, f in enumerate(fields):
        value = f.name
        if f.default is not _MISSING:
            env[f"_d{n}"] = f.default
            params.append(f"{f.name}=_d{n}")
        elif getattr(f.default_factory, "__record_constant__", _MISSING) is not _MISSING:
            env[f"_d{n}"] = f.default_factory.__record_constant__  # type: ignore[union-attr]
            params.append(f"{f.name}=_d{n}")  # a factory of one immutable object: that object is the default
        elif f.default_factory is not _MISSING:
            env[f"_f{n}"] = f.default_factory
            params.append(f"{f.name}=_FACTORY")
            value = f"_f{n}() if {f.name} is _FACTORY else {f.name}"
        else:
            params.append(f.name)
        slot = _own_slot(cls, f.name) if frozen else None
        if type(slot) is _MEMBER:  # a slot: its own setter, which is what object.__setattr__ ends up calling
            env[f"_s{n}"] = slot.__set__
            lines.append(f"_s{n}(self, {value})")
            plain.append(f"self.{f.name} = {value}")
        else:
            lines.append(f"_setattr(self, {f.name!r}, {value})" if frozen else f"self.{f.name} = {value}")
    open_fill = frozen and len(plain) == len(fields) >= 3
    if hasattr(cls, "__post_init__"):
        lines.append("self.__post_init__()")
        plain.append("self.__post_init__()")
    return env, params, lines, plain if open_fill else None


def _make_init(cls: Any, fields: tuple[dataclasses.Field[Any], ...], frozen: bool) -> Callable[..., None]:
    """The ``__init__`` dataclass writes for these (positional-or-keyword) fields.

    A frozen record whose fields are all slots is filled as an object of :func:`_open_twin`, a
    subclass that lets assignments through: a plain assignment to a slot is far cheaper than a call
    of the slot's setter (~100 instructions against ~600), so turning the object into the twin and
    back (two ``__class__`` assignments) pays from three fields on. An object of a subclass is filled
    slot by slot as before."""
    env, params, body, plain = _assignments(cls, fields, frozen)
    if plain is not None:  # (one body: a subclass's object goes to _fill_slowly, which the text need not hold)
        names = [f.name for f in fields]
        env.update(_rc_cls=cls, _rc_open=_open_twin(cls), _rc_type=type, _rc_swap=_SET_CLASS,
                   _rc_slowly=_fill_slowly(cls, fields))
        post = plain[len(fields):]  # __post_init__, on the record itself
        body = [f"if _rc_type(self) is not _rc_cls: return _rc_slowly(self, {', '.join(names)})",
                "_rc_swap(self, _rc_open)", *plain[:len(fields)], "_rc_swap(self, _rc_cls)", *post]
    source = f"def __init__({', '.join(['self', *params])}):\n " + ("\n ".join(body) or "pass") + "\n"
    exec(source, env)  # noqa: S102 - our own text over the class's field names
    init: Callable[..., None] = env["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__annotations__ = {**{f.name: f.type for f in fields}, "return": None}
    return init


def _first_build(cls: Any, fields: tuple[dataclasses.Field[Any], ...], frozen: bool) -> staticmethod[..., Any]:
    """``cls._record_build``: on its first call, puts the real one (:func:`_make_build`) in its place."""
    def _record_build(*args: Any, **kwargs: Any) -> Any:
        build = _make_build(cls, fields, frozen)
        type.__setattr__(cls, "_record_build", staticmethod(build))
        return build(*args, **kwargs)
    return staticmethod(_record_build)


def _make_build(cls: Any, fields: tuple[dataclasses.Field[Any], ...], frozen: bool) -> Callable[..., Any]:
    """``cls._record_build(...)`` is ``cls(...)``; for a frozen record whose fields are all slots, the object
    is made as one of :func:`_open_twin`, filled, then turned into ``cls`` (one ``__class__``
    assignment where ``cls(...)`` needs two)."""
    env, params, _, plain = _assignments(cls, fields, frozen)
    if plain is None:
        return cls  # type: ignore[no-any-return]
    env.update(_rc_cls=cls, _rc_open=_open_twin(cls), _rc_new=object.__new__, _rc_swap=_SET_CLASS)
    post = plain[len(fields):]
    body = ["self = _rc_new(_rc_open)", *plain[:len(fields)], "_rc_swap(self, _rc_cls)", *post, "return self"]
    exec(f"def _record_build({', '.join(params)}):\n " + "\n ".join(body) + "\n", env)  # noqa: S102 - as _make_init
    build: Callable[..., Any] = env["_record_build"]
    build.__qualname__ = f"{cls.__qualname__}._record_build"
    return build


def _fill_slowly(cls: Any, fields: tuple[dataclasses.Field[Any], ...]) -> Callable[..., None]:
    """How a written ``__init__`` fills an object of a subclass (not turned into the open twin):
    field by field through ``object.__setattr__``, default factories called, then ``__post_init__``."""
    factories = [f.default_factory if f.default_factory is not _MISSING
                 and getattr(f.default_factory, "__record_constant__", _MISSING) is _MISSING else None
                 for f in fields]
    names = [f.name for f in fields]
    post = hasattr(cls, "__post_init__")

    def fill(self: Any, *values: Any) -> None:
        for name, value, factory in zip(names, values, factories, strict=True):
            object.__setattr__(self, name, factory() if factory is not None and value is _FACTORY else value)
        if post:
            self.__post_init__()
    return fill


_SET_CLASS = object.__dict__["__class__"].__set__  # obj.__class__ = other, past a frozen __setattr__


def _own_slot(cls: type, name: str) -> object:
    """The descriptor ``name`` resolves to on ``cls`` (a slot's member descriptor, for slots)."""
    for klass in cls.__mro__:
        if name in klass.__dict__:
            return klass.__dict__[name]
    return None


def _open_twin(cls: type) -> type:
    """A subclass of ``cls`` with its layout (no slot of its own) and plain attribute assignment:
    an object of ``cls`` can become one (``__class__``) to be filled, then ``cls`` again. One per class."""
    twin = cls.__dict__.get("__record_open__")
    if twin is None:
        twin = type(cls.__name__, (cls,), {"__slots__": (), "__setattr__": object.__setattr__,
                                           "__delattr__": object.__delattr__, "__module__": cls.__module__,
                                           "__qualname__": f"{cls.__qualname__}.<open>"})
        type.__setattr__(cls, "__record_open__", twin)
    return twin


def _frozen_methods(cls: Any, fields: tuple[dataclasses.Field[Any], ...], slots: bool) -> dict[str, Any]:
    """``__setattr__``/``__delattr__`` of a frozen dataclass (and, with slots, pickling's state)."""
    names = frozenset(f.name for f in fields)
    error = dataclasses.FrozenInstanceError

    def __setattr__(self: Any, name: str, value: Any) -> None:
        if type(self) is cls or name in names:
            raise error(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    def __delattr__(self: Any, name: str) -> None:
        if type(self) is cls or name in names:
            raise error(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)

    methods: dict[str, Any] = {"__setattr__": __setattr__, "__delattr__": __delattr__}
    if slots:
        def __getstate__(self: Any) -> list[Any]:
            return [getattr(self, f.name) for f in dataclasses.fields(self)]

        def __setstate__(self: Any, state: list[Any]) -> None:
            for f, value in zip(dataclasses.fields(self), state, strict=False):
                object.__setattr__(self, f.name, value)

        for name, fn in (("__getstate__", __getstate__), ("__setstate__", __setstate__)):
            if name not in cls.__dict__:
                methods[name] = fn
    return methods
