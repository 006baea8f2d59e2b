"""Blowfish decryption by the platform's OpenSSL libcrypto, when it can be loaded.

``config.masked`` writes Blowfish out in Python (its reference) and uses this engine when a file
has passwords to decode and libcrypto is there: OpenSSL keeps the initial P-array and S-boxes
tabled (no pi to work out) and decrypts a block in C. The library is looked for under a few fixed
names (``ctypes.util.find_library`` would start subprocesses); any failure to load it or find its
functions leaves the Python cipher in use. ctypes is imported only when a caller asks for this
engine (validate's start-up imports neither).

The key's length is not judged here: the caller keeps Java's rules (1 to 56 bytes) in front.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

# Names of the OpenSSL 3 and 1.1 libraries (Linux, macOS); the unversioned name last.
_SONAMES = ("libcrypto.so.3", "libcrypto.so.1.1", "libcrypto.3.dylib", "libcrypto.1.1.dylib", "libcrypto.so")
_KEY_SIZE = (18 + 4 * 256) * 4  # BF_KEY: the P-array and the S-boxes, 32-bit words
_BF_DECRYPT = 0

BlockDecrypter = Callable[[bytes], bytes]


@lru_cache(maxsize=1)
def _library() -> object | None:
    """libcrypto, where it loads and has BF_set_key and BF_ecb_encrypt (their result types set), or None."""
    try:
        import ctypes
    except ImportError:  # an interpreter built without ctypes
        return None
    for name in _SONAMES:
        try:
            lib = ctypes.PyDLL(name)  # called with the GIL held: a block is far quicker than a release
            set_key, ecb = lib.BF_set_key, lib.BF_ecb_encrypt
        except (OSError, AttributeError):
            continue
        set_key.argtypes = (ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p)
        set_key.restype = ecb.restype = None
        # BF_ecb_encrypt is given no argtypes (converting by them takes as long as the call): it is only
        # called below, with a bytes object (char *), two ctypes buffers (pointers) and an int
        return lib
    return None


def block_decrypter(key: bytes) -> BlockDecrypter | None:
    """A function that decrypts one 8-byte block with Blowfish under ``key`` (1 to 56 bytes), or None
    where libcrypto cannot be used."""
    lib = _library()
    if lib is None:
        return None
    import ctypes

    schedule = ctypes.create_string_buffer(_KEY_SIZE)
    lib.BF_set_key(schedule, len(key), key)  # type: ignore[attr-defined]
    ecb = lib.BF_ecb_encrypt  # type: ignore[attr-defined]
    out_type = ctypes.c_char * 8

    def decrypt_block(block: bytes) -> bytes:
        if type(block) is not bytes or len(block) != 8:
            raise ValueError("a Blowfish block is 8 bytes")
        out = out_type()  # one per call: another thread may decrypt between the call and the read
        ecb(block, out, schedule, _BF_DECRYPT)
        return out.raw

    return decrypt_block
