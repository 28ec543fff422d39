"""A restricted pickle interpreter: the opcodes PyTorch's files use, and nothing else.

Python's ``pickle.Unpickler`` imports and calls whatever a file names. This interpreter runs
the opcodes itself (those PyTorch's ``weights_only`` unpickler runs, plus the few plain-data
opcodes of protocols 3-4), and treats the file as data:

- GLOBAL is looked up in ``allowlist`` tables (``'module.name' -> object``); nothing is imported.
- REDUCE calls only the allowlisted callables (dagrad's checked rebuild functions and what the
  user allowlisted); NEWOBJ creates only allowlisted classes; BUILD sets state only on
  OrderedDicts, modules (through ``modules.restore_module``) and user-allowlisted classes.
- APPEND only to lists, SETITEM only to dicts; the persistent ids are storages only.

Every opcode builds at most one object, so what the opcodes build is bounded by the file's
size. The work that is not (copying a container into ``set``, ``OrderedDict``, ``bytearray``,
..., hashing a tuple key, setting a module's attributes: one opcode can repeat it on an object
fetched from the memo) is charged to a budget of a few times the pickle's length, so a small
file cannot ask for quadratic memory or time. Storages are read by the caller's
``persistent_load``, which bounds them too.

No container is nested more than ``MAX_DEPTH`` deep (counted as each is built or filled): a
300 KB file of 300,000 one-element tuples, each inside the next, would otherwise crash the
interpreter as soon as the outer one is hashed (a dict key): hashing a tuple recurses in C with
no limit. The modules a file builds must form a tree, shared children allowed
(``modules.refuse_loaded_cycles`` runs when the pickle ends). Every malformed input raises
``SerializationError``.
"""
import struct
from collections import Counter, OrderedDict

from ...module import Module
from .. import modules
from ..allowlist import is_blocked
from ..errors import SerializationError
from . import rebuild

_IMPORT_MAPPING = {"__builtin__": "builtins", "copy_reg": "copyreg"}   # protocol-2 names
MAX_DEPTH = 1000        # containers inside containers; torch.save's files nest a few dozen


class RestrictedUnpickler:
    """Unpickle ``data`` (bytes) with globals from ``table`` and storages from
    ``persistent_load(pid)``.

    ``table`` maps ``'module.name'`` to objects; ``callable_ids`` holds the ids of those REDUCE
    may call; ``classes`` maps names to Module classes NEWOBJ may create; ``trusted`` is the
    user's allowlist (``'module.name' -> object``); ``functions(name)`` finds dagrad's own
    functions (values only, never called here); ``refuse(name)`` explains a name that is not
    allowed.
    """

    def __init__(self, data, table, callable_ids, classes, trusted, persistent_load, refuse,
                 functions):
        self.data, self.pos = data, 0
        self.table, self.callable_ids, self.classes = table, callable_ids, classes
        self.trusted = trusted
        self.trusted_ids = {id(v) for v in trusted.values()}
        self.persistent_load, self.refuse, self.functions = persistent_load, refuse, functions
        self.memo, self.stack, self.metastack = {}, [], []
        self.budget = 8 * len(data) + 4096      # elements copied or hashed, see charge()
        self.depths = {}        # id(container) -> (container, nesting depth), see nest()
        self.modules = []       # every module built, checked for cycles at the end

    def charge(self, *values):
        """Count the elements ``values`` hold against the budget (each copy, set or hash of a
        container costs its length)."""
        for value in values:
            if isinstance(value, (list, tuple, set, dict, str, bytes, bytearray)):
                self.budget -= len(value) + 1
            else:
                self.budget -= 1
        if self.budget < 0:
            raise SerializationError("torch.load: the file's data.pkl asks for far more work "
                                     "than its size allows (the same containers copied again "
                                     "and again); it was not written by torch.save")

    def nest(self, container, items):
        """Record that ``container`` holds ``items``: its depth is one more than theirs.
        Raises once a depth passes ``MAX_DEPTH``; returns ``container``."""
        depth = 1
        for item in items:
            entry = self.depths.get(id(item))
            if entry is not None and entry[1] >= depth:
                depth = entry[1] + 1
        entry = self.depths.get(id(container))
        if entry is None or entry[1] < depth:
            if depth > MAX_DEPTH:
                raise SerializationError(
                    f"torch.load: the file's data.pkl nests containers more than {MAX_DEPTH} "
                    f"deep (a {type(container).__name__} inside a {type(container).__name__} "
                    f"...); files written by torch.save nest a few levels, and a deeper one "
                    f"could crash the interpreter when it is hashed")
            self.depths[id(container)] = (container, depth)
        return container

    # ------------------------------------------------------------------------ reading
    def read(self, n):
        end = self.pos + n
        if end > len(self.data):
            raise SerializationError("torch.load: the file's data.pkl ends in the middle of an "
                                     "opcode (truncated)")
        chunk = self.data[self.pos:end]
        self.pos = end
        return chunk

    def readline(self):
        end = self.data.find(b"\n", self.pos)
        if end < 0:
            raise SerializationError("torch.load: the file's data.pkl ends inside a global name")
        line = self.data[self.pos:end]
        self.pos = end + 1
        return line.decode("utf-8")

    def pop(self):
        if not self.stack:
            raise SerializationError("torch.load: the file's data.pkl pops an empty stack")
        return self.stack.pop()

    def top(self):
        if not self.stack:
            raise SerializationError("torch.load: the file's data.pkl reads an empty stack")
        return self.stack[-1]

    def pop_mark(self):
        if not self.metastack:
            raise SerializationError("torch.load: the file's data.pkl closes a MARK it never "
                                     "opened")
        items = self.stack
        self.stack = self.metastack.pop()
        return items

    # ------------------------------------------------------------------------ globals
    def find(self, module, name):
        module = _IMPORT_MAPPING.get(module, module)
        full = f"{module}.{name}"
        if is_blocked(full):
            raise self.refuse(full)
        for table in (self.table, self.classes, self.trusted):
            if full in table:
                return table[full]
        found = self.functions(full)
        if found is None:
            raise self.refuse(full)
        return found

    def call(self, func, args):
        if type(args) is not tuple:
            raise SerializationError("torch.load: the file's data.pkl calls a function with "
                                     "arguments that are not a tuple")
        if id(func) not in self.callable_ids and id(func) not in self.trusted_ids:
            raise SerializationError(f"torch.load: the file's data.pkl calls {func!r:.80}, "
                                     f"which is not an allowed function")
        self.charge(*args)
        return self.nest(func(*args), args)

    def new(self, cls, args):
        if type(args) is not tuple:
            raise SerializationError("torch.load: NEWOBJ without a tuple of arguments")
        if isinstance(cls, type) and issubclass(cls, Module) and (
                cls in self.classes.values() or id(cls) in self.trusted_ids):
            if args:
                raise SerializationError(f"torch.load: the file creates {cls.__qualname__} "
                                         f"with arguments; a module is built from its state")
            module = modules.new_module(cls)
            self.modules.append(module)
            return module
        if id(cls) in self.callable_ids and isinstance(cls, type):     # Parameter
            return cls(*args)
        if id(cls) in self.trusted_ids and isinstance(cls, type):
            return cls.__new__(cls, *args)
        raise SerializationError(f"torch.load: the file creates an object of {cls!r:.80}, "
                                 f"which is not an allowed class")

    def build(self, instance, state):
        self.charge(state)
        self.nest(instance, (state,))
        if isinstance(instance, Module):
            modules.restore_module(instance, state)
        elif type(instance) is OrderedDict:
            rebuild.ordered_dict_attributes(instance, state)
        elif id(type(instance)) in self.trusted_ids:        # trusted by the user, as PyTorch
            if hasattr(instance, "__setstate__"):
                instance.__setstate__(state)
            else:
                slots = None
                if isinstance(state, tuple) and len(state) == 2:
                    state, slots = state
                if state:
                    instance.__dict__.update(state)
                for key, value in (slots or {}).items():
                    setattr(instance, key, value)
        else:
            raise SerializationError(f"torch.load: the file sets the state of a "
                                     f"{type(instance).__name__}, which it may not")

    # ------------------------------------------------------------------------ the loop
    def load(self):
        if self.read(1) != b"\x80":
            raise SerializationError("torch.load: the file's data.pkl is not a binary pickle")
        if self.read(1)[0] not in (2, 3, 4, 5):
            raise SerializationError("torch.load: the file's data.pkl has an unknown pickle "
                                     "protocol")
        ops = _OPS
        while True:
            code = self.read(1)[0]
            op = ops.get(code)
            if op is None:
                raise SerializationError(f"torch.load: the file's data.pkl uses the pickle "
                                         f"opcode {bytes([code])!r}, which PyTorch's files "
                                         f"never use")
            if op is _stop:
                result = self.pop()
                modules.refuse_loaded_cycles(self.modules)
                return result
            op(self)


# one function per opcode -----------------------------------------------------------------
def _unpack(fmt, u):
    return struct.unpack(fmt, u.read(struct.calcsize(fmt)))[0]


def _global(u):
    module = u.readline()
    u.stack.append(u.find(module, u.readline()))


def _stack_global(u):
    name, module = u.pop(), u.pop()
    if type(name) is not str or type(module) is not str:
        raise SerializationError("torch.load: STACK_GLOBAL names a global with non-strings")
    u.stack.append(u.find(module, name))


def _reduce(u):
    args = u.pop()
    func = u.pop()
    u.stack.append(u.call(func, args))


def _newobj(u):
    args = u.pop()
    cls = u.pop()
    u.stack.append(u.new(cls, args))


def _build(u):
    state = u.pop()
    u.build(u.top(), state)


def _append(u):
    _extend(u, [u.pop()], "APPEND")


def _appends(u):
    _extend(u, u.pop_mark(), "APPENDS")


def _extend(u, items, opcode):
    target = u.top()
    if type(target) is not list:
        raise SerializationError(f"torch.load: {opcode} to a {type(target).__name__}")
    target.extend(items)
    u.nest(target, items)


def _setitem(u):
    value, key = u.pop(), u.pop()
    _set_items(u, u.top(), [key, value])


def _setitems(u):
    items = u.pop_mark()
    if len(items) % 2:
        raise SerializationError("torch.load: SETITEMS with a key and no value")
    _set_items(u, u.top(), items)


def _set_items(u, target, items):
    if type(target) not in (dict, OrderedDict, Counter):
        raise SerializationError(f"torch.load: SETITEM on a {type(target).__name__}")
    for i in range(0, len(items), 2):
        u.charge(items[i])          # hashing a tuple key costs its length
        target[items[i]] = items[i + 1]
    u.nest(target, items)


def _additems(u):
    items = u.pop_mark()
    target = u.top()
    if type(target) is not set:
        raise SerializationError(f"torch.load: ADDITEMS to a {type(target).__name__}")
    u.charge(*items)
    target.update(items)
    u.nest(target, items)


def _mark(u):
    u.metastack.append(u.stack)
    u.stack = []


def _tuple(u):
    items = tuple(u.pop_mark())     # pop_mark replaces u.stack: read it after
    u.stack.append(u.nest(items, items))


def _tuple_n(n):
    def op(u):
        if len(u.stack) < n:
            raise SerializationError("torch.load: the file's data.pkl pops an empty stack")
        items = tuple(u.stack[len(u.stack) - n:])
        del u.stack[len(u.stack) - n:]
        u.stack.append(u.nest(items, items))
    return op


def _push(value_factory):
    def op(u):
        u.stack.append(value_factory())
    return op


def _push_empty(container_type):
    def op(u):
        u.stack.append(u.nest(container_type(), ()))
    return op


def _binpersid(u):
    pid = u.pop()
    if type(pid) is not tuple or not pid or pid[0] not in ("storage", b"storage"):
        raise SerializationError(f"torch.load: the file asks for the persistent object "
                                 f"{pid!r:.80}; only storages are loaded")
    u.stack.append(u.persistent_load(pid))


def _get(fmt):
    def op(u):
        index = _unpack(fmt, u)
        if index not in u.memo:
            raise SerializationError(f"torch.load: the file's data.pkl reads memo {index}, "
                                     f"which it never wrote")
        u.stack.append(u.memo[index])
    return op


def _put(fmt):
    def op(u):
        u.memo[_unpack(fmt, u)] = u.top()
    return op


def _memoize(u):
    u.memo[len(u.memo)] = u.top()


def _text(fmt):
    def op(u):
        data = u.read(_unpack(fmt, u))
        u.stack.append(str(data, "utf-8", "surrogatepass"))
    return op


def _bytes(fmt):
    def op(u):
        u.stack.append(bytes(u.read(_unpack(fmt, u))))
    return op


def _long1(u):
    u.stack.append(int.from_bytes(u.read(u.read(1)[0]), "little", signed=True))


def _frame(u):
    u.read(8)       # protocol 4's frame length: the opcodes follow as usual


def _stop(u):
    pass


_OPS = {
    ord("c"): _global, 0x93: _stack_global, ord("R"): _reduce, 0x81: _newobj, ord("b"): _build,
    ord("a"): _append, ord("e"): _appends, ord("s"): _setitem, ord("u"): _setitems,
    0x90: _additems, ord("("): _mark, ord("t"): _tuple, 0x85: _tuple_n(1), 0x86: _tuple_n(2),
    0x87: _tuple_n(3), ord("N"): _push(lambda: None), 0x88: _push(lambda: True),
    0x89: _push(lambda: False), ord(")"): _push(tuple), ord("]"): _push_empty(list),
    ord("}"): _push_empty(dict), 0x8f: _push_empty(set),
    ord("J"): lambda u: u.stack.append(_unpack("<i", u)),
    ord("K"): lambda u: u.stack.append(u.read(1)[0]),
    ord("M"): lambda u: u.stack.append(_unpack("<H", u)),
    ord("G"): lambda u: u.stack.append(_unpack(">d", u)),
    0x8a: _long1, ord("X"): _text("<I"), 0x8c: _text("<B"), 0x8d: _text("<Q"),
    ord("C"): _bytes("<B"), ord("B"): _bytes("<I"), ord("U"): _text("<B"),
    ord("Q"): _binpersid, ord("h"): _get("<B"), ord("j"): _get("<I"), ord("q"): _put("<B"),
    ord("r"): _put("<I"), 0x94: _memoize, 0x95: _frame, ord("."): _stop,
}
