"""Check the Java behaviour the CORE/OpenWire codecs imitate against a real JVM.

A tiny Java program (written here, using only java.util.HashMap, String.hashCode and
java.io.DataOutputStream) prints the reference values; the test compares our Python helpers and
the OpenWire server's WireFormatInfo properties with them. Skipped when no JDK is installed.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from artemis_routing_cli.protocols import openwire_marshal as ow
from artemis_routing_cli.protocols.core_java import java_hashmap_order, java_string_hash, write_java_utf
from artemis_routing_cli.protocols.openwire import server_wireformat
from tests.javacache import compiled

pytestmark = pytest.mark.skipif(shutil.which("javac") is None or shutil.which("java") is None, reason="no JDK")

KEY_SETS = [
    ["host", "port"],
    ["host", "port", "sslEnabled", "trustStorePath", "trustStorePassword", "useEpoll"],
    [f"key{i}" for i in range(30)],
]
UTF_SAMPLES = ["", "abc", "a\u0000b", "h\u00e9llo", "\u20ac", "x\U0001f600y"]

JAVA = r"""
import java.io.*;
import java.util.*;

public class Oracle {
    static String hex(byte[] b) {
        StringBuilder s = new StringBuilder();
        for (byte x : b) s.append(String.format("%02x", x));
        return s.toString();
    }
    static String unescape(String s) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < s.length(); i += 4) out.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
        return out.toString();
    }
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        String line;
        while ((line = in.readLine()) != null) {
            String[] parts = line.split(" ", -1);
            if (parts[0].equals("order")) {
                HashMap<String, Integer> m = new HashMap<>();
                for (int i = 1; i < parts.length; i++) m.put(parts[i], i);
                System.out.println(String.join(" ", m.keySet()));
            } else if (parts[0].equals("utf")) {
                String s = parts.length > 1 ? unescape(parts[1]) : "";
                ByteArrayOutputStream bos = new ByteArrayOutputStream();
                new DataOutputStream(bos).writeUTF(s);
                System.out.println(hex(bos.toByteArray()) + " " + s.hashCode());
            } else if (parts[0].equals("wireformat")) {
                HashMap<String, Object> p = new HashMap<>();
                p.put("StackTraceEnabled", Boolean.TRUE);
                p.put("CacheEnabled", Boolean.FALSE);
                p.put("TcpNoDelayEnabled", Boolean.TRUE);
                p.put("TightEncodingEnabled", Boolean.TRUE);
                p.put("SizePrefixDisabled", Boolean.FALSE);
                p.put("MaxInactivityDuration", Long.valueOf(30000));
                p.put("MaxInactivityDurationInitalDelay", Long.valueOf(10000));
                p.put("CacheSize", Integer.valueOf(1024));
                p.put("MaxFrameSize", Long.valueOf(Long.MAX_VALUE));
                p.put("MaxFrameSizeEnabled", Boolean.TRUE);
                p.put("ProviderName", "ActiveMQ");
                p.put("ProviderVersion", "5.19.1");
                p.put("PlatformDetails", "Java");
                ByteArrayOutputStream bos = new ByteArrayOutputStream();
                DataOutputStream out = new DataOutputStream(bos);
                out.writeInt(p.size());
                for (String k : p.keySet()) {
                    out.writeUTF(k);
                    Object v = p.get(k);
                    if (v instanceof Boolean) { out.writeByte(1); out.writeBoolean((Boolean) v); }
                    else if (v instanceof Long) { out.writeByte(6); out.writeLong((Long) v); }
                    else if (v instanceof Integer) { out.writeByte(5); out.writeInt((Integer) v); }
                    else { out.writeByte(9); out.writeUTF((String) v); }
                }
                System.out.println(hex(bos.toByteArray()));
            }
        }
    }
}
"""


def _units_hex(text: str) -> str:
    raw = text.encode("utf-16-be", "surrogatepass")
    return raw.hex()


@pytest.fixture(scope="module")
def oracle(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    work: Path = tmp_path_factory.mktemp("oracle")
    (work / "Oracle.java").write_text(JAVA)
    classes = compiled(work / "Oracle.java", options=())
    lines = [f"order {' '.join(keys)}" for keys in KEY_SETS]
    lines += [f"utf {_units_hex(s)}" for s in UTF_SAMPLES]
    lines.append("wireformat")
    result = subprocess.run(
        ["java", "-cp", str(classes), "Oracle"],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return result.stdout.splitlines()


def test_hashmap_order_matches_java(oracle: list[str]) -> None:
    for keys, line in zip(KEY_SETS, oracle, strict=False):
        assert java_hashmap_order(keys) == line.split(" ")


def test_write_utf_and_hash_match_java(oracle: list[str]) -> None:
    for text, line in zip(UTF_SAMPLES, oracle[len(KEY_SETS) :], strict=False):
        encoded, hash_code = line.split(" ")
        assert write_java_utf(text).hex() == encoded
        assert java_string_hash(text) == int(hash_code)


def test_server_wireformat_properties_match_java(oracle: list[str]) -> None:
    assert ow.encode_primitive_map(server_wireformat().properties).hex() == oracle[-1]
