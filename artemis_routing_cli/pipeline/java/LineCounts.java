package arouter.udf;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.LongWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.input.TextInputFormat;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.types.UTF8String;

import scala.Tuple2;

/**
 * Counts the answers of the simplest router shapes over the lines of a text input, on the executors,
 * without a Spark SQL row per answer: each line is read once as the bytes Spark's text reader holds,
 * checked for well-formed UTF-8 and hashed (the broker's FNV-1a over its UTF-16 code units) in the
 * same pass, then every router's slot is looked up and the combination counted.
 *
 * <p>The answers are those of {@code sql_route.SqlRouting} for routers reading the whole line as a
 * CLIENT_ID or USER_NAME key, with no key-filter and no local-target-filter: a CLIENT_ID beginning with
 * the internal prefix goes to the local target (slot 0); otherwise the slot is the router's constant or
 * 1 + the index of the ring's greatest hash not above the key's hash (else the first). A line that is
 * not UTF-8 is a bad row: every slot is -3 and no key is NULL.
 *
 * <p>{@code spec}: [variants, then per variant: main (0/1), internal check (0/1), radix, constant slot
 * (or {@link #RING}), ring size, the ring's sorted hashes...]. A combination is coded in mixed radix:
 * bad (0/1), then per variant (slot + 3) in its radix and, for a main router, NULL (0/1).
 * The result: code, count, code, count... for every combination seen.
 */
public final class LineCounts {
    public static final int RING = Integer.MIN_VALUE;
    static final long INVALID = 1L << 32;
    static final byte[] INTERNAL = "$.artemis.internal.router.client.".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    static final byte[] NULL_KEY = {'N', 'U', 'L', 'L'};

    private LineCounts() {
    }

    /** Well-formed UTF-8 (Unicode Table 3-7) hashed as UTF-16 units, or INVALID. */
    static long hash(Object base, long off, int n) {
        int h = 0x811c9dc5;
        int i = 0;
        while (i < n) {
            int c = Platform.getByte(base, off + i) & 0xff;
            if (c < 0x80) {
                h = (h ^ c) * 0x01000193;
                i++;
                continue;
            }
            int cp;
            if (c >= 0xc2 && c <= 0xdf) {
                if (i + 1 >= n) {
                    return INVALID;
                }
                int c1 = Platform.getByte(base, off + i + 1) & 0xff;
                if ((c1 & 0xc0) != 0x80) {
                    return INVALID;
                }
                cp = ((c & 0x1f) << 6) | (c1 & 0x3f);
                i += 2;
            } else if (c >= 0xe0 && c <= 0xef) {
                if (i + 2 >= n) {
                    return INVALID;
                }
                int c1 = Platform.getByte(base, off + i + 1) & 0xff;
                int c2 = Platform.getByte(base, off + i + 2) & 0xff;
                int lo = c == 0xe0 ? 0xa0 : 0x80;
                int hi = c == 0xed ? 0x9f : 0xbf;
                if (c1 < lo || c1 > hi || (c2 & 0xc0) != 0x80) {
                    return INVALID;
                }
                cp = ((c & 0x0f) << 12) | ((c1 & 0x3f) << 6) | (c2 & 0x3f);
                i += 3;
            } else if (c >= 0xf0 && c <= 0xf4) {
                if (i + 3 >= n) {
                    return INVALID;
                }
                int c1 = Platform.getByte(base, off + i + 1) & 0xff;
                int c2 = Platform.getByte(base, off + i + 2) & 0xff;
                int c3 = Platform.getByte(base, off + i + 3) & 0xff;
                int lo = c == 0xf0 ? 0x90 : 0x80;
                int hi = c == 0xf4 ? 0x8f : 0xbf;
                if (c1 < lo || c1 > hi || (c2 & 0xc0) != 0x80 || (c3 & 0xc0) != 0x80) {
                    return INVALID;
                }
                int v = (((c & 0x07) << 18) | ((c1 & 0x3f) << 12) | ((c2 & 0x3f) << 6) | (c3 & 0x3f)) - 0x10000;
                h = (h ^ (0xd800 | (v >>> 10))) * 0x01000193;
                h = (h ^ (0xdc00 | (v & 0x3ff))) * 0x01000193;
                i += 4;
                continue;
            } else {
                return INVALID;
            }
            h = (h ^ cp) * 0x01000193;
        }
        return h & 0xffffffffL;
    }

    /** FNV-1a of well-formed UTF-8 bytes as a signed int, or null when they are not UTF-8. */
    public static Integer hashBytes(byte[] bytes) {
        long r = hash(bytes, Platform.BYTE_ARRAY_OFFSET, bytes.length);
        return r == INVALID ? null : (int) r;
    }

    static boolean startsWith(Object base, long off, int n, byte[] prefix) {
        if (n < prefix.length) {
            return false;
        }
        for (int i = 0; i < prefix.length; i++) {
            if (Platform.getByte(base, off + i) != prefix[i]) {
                return false;
            }
        }
        return true;
    }

    /** The index of the greatest of {@code hashes} (sorted, signed) not above h, else 0. */
    static int floorIndex(int[] hashes, int from, int size, int h) {
        int lo = 0;
        int hi = size - 1;
        int found = 0;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (hashes[from + mid] <= h) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found;
    }

    /** A small map from code to count (open addressing; codes are never negative). */
    static final class Table {
        long[] keys = new long[64];
        long[] counts = new long[64];
        int size;

        Table() {
            java.util.Arrays.fill(keys, -1L);
        }

        void add(long code, long count) {
            int mask = keys.length - 1;
            int i = (int) (code ^ (code >>> 29) ^ (code >>> 47)) * 0x9e3779b1 & mask;
            while (true) {
                long k = keys[i];
                if (k == code) {
                    counts[i] += count;
                    return;
                }
                if (k == -1L) {
                    keys[i] = code;
                    counts[i] = count;
                    if (++size * 2 > keys.length) {
                        grow();
                    }
                    return;
                }
                i = (i + 1) & mask;
            }
        }

        void grow() {
            long[] oldKeys = keys;
            long[] oldCounts = counts;
            keys = new long[oldKeys.length * 2];
            counts = new long[oldKeys.length * 2];
            java.util.Arrays.fill(keys, -1L);
            size = 0;
            for (int i = 0; i < oldKeys.length; i++) {
                if (oldKeys[i] != -1L) {
                    add(oldKeys[i], oldCounts[i]);
                }
            }
        }

        long[] pairs() {
            long[] out = new long[size * 2];
            int j = 0;
            for (int i = 0; i < keys.length; i++) {
                if (keys[i] != -1L) {
                    out[j++] = keys[i];
                    out[j++] = counts[i];
                }
            }
            return out;
        }
    }

    /** Routes and counts lines given as (base, offset, length) of their bytes. */
    static final class Tally {
        private final int variants;
        private final boolean[] main;
        private final boolean[] internalCheck;
        private final int[] radix;
        private final int[] constant;
        private final int[] ringFrom;
        private final int[] ringSize;
        private final int[] spec;
        private final boolean anyInternal;
        private final Table table = new Table();
        private long lastCode = -1L;
        private long run;

        Tally(int[] spec) {
            this.spec = spec;
            variants = spec[0];
            main = new boolean[variants];
            internalCheck = new boolean[variants];
            radix = new int[variants];
            constant = new int[variants];
            ringFrom = new int[variants];
            ringSize = new int[variants];
            boolean any = false;
            int at = 1;
            for (int v = 0; v < variants; v++) {
                main[v] = spec[at] != 0;
                internalCheck[v] = spec[at + 1] != 0;
                any |= internalCheck[v];
                radix[v] = spec[at + 2];
                constant[v] = spec[at + 3];
                ringSize[v] = spec[at + 4];
                ringFrom[v] = at + 5;
                at += 5 + ringSize[v];
            }
            anyInternal = any;
        }

        void line(Object base, long off, int n) {
            long hashed = hash(base, off, n);
            boolean bad = hashed == INVALID;
            int h = (int) hashed;
            boolean internal = !bad && anyInternal && startsWith(base, off, n, INTERNAL);
            boolean isNull = !bad && n == 4 && startsWith(base, off, n, NULL_KEY);
            long code = bad ? 1 : 0;
            for (int v = 0; v < variants; v++) {
                int slot;
                boolean local = internalCheck[v] && internal;
                if (bad) {
                    slot = -3;
                } else if (local) {
                    slot = 0;
                } else if (constant[v] != RING) {
                    slot = constant[v];
                } else {
                    slot = 1 + floorIndex(spec, ringFrom[v], ringSize[v], h);
                }
                code = code * radix[v] + (slot + 3);
                if (main[v]) {
                    code = code * 2 + (isNull && !local ? 1 : 0);
                }
            }
            if (code == lastCode) {
                run++;
            } else {
                if (run > 0) {
                    table.add(lastCode, run);
                }
                lastCode = code;
                run = 1;
            }
        }

        Iterator<long[]> result() {
            if (run > 0) {
                table.add(lastCode, run);
                run = 0;
            }
            List<long[]> out = new ArrayList<>(1);
            out.add(table.pairs());
            return out.iterator();
        }
    }

    /** Lines as the rows of a one-column string Dataset (Spark's text reader). */
    static final class RowCounter implements FlatMapFunction<Iterator<InternalRow>, long[]> {
        private static final long serialVersionUID = 1L;
        private final int[] spec;

        RowCounter(int[] spec) {
            this.spec = spec;
        }

        @Override
        public Iterator<long[]> call(Iterator<InternalRow> rows) {
            Tally tally = new Tally(spec);
            while (rows.hasNext()) {
                UTF8String s = rows.next().getUTF8String(0);
                tally.line(s.getBaseObject(), s.getBaseOffset(), s.numBytes());
            }
            return tally.result();
        }
    }

    /** Lines as Hadoop's LineRecordReader gives them (the reader under Spark's text source). */
    static final class TextCounter implements FlatMapFunction<Iterator<Tuple2<LongWritable, Text>>, long[]> {
        private static final long serialVersionUID = 1L;
        private final int[] spec;

        TextCounter(int[] spec) {
            this.spec = spec;
        }

        @Override
        public Iterator<long[]> call(Iterator<Tuple2<LongWritable, Text>> lines) {
            Tally tally = new Tally(spec);
            while (lines.hasNext()) {
                Text t = lines.next()._2();
                tally.line(t.getBytes(), Platform.BYTE_ARRAY_OFFSET, t.getLength());
            }
            return tally.result();
        }
    }

    static long[] merge(List<long[]> parts) {
        Table total = new Table();
        for (long[] part : parts) {
            for (int i = 0; i < part.length; i += 2) {
                total.add(part[i], part[i + 1]);
            }
        }
        return total.pairs();
    }

    /** The combinations of answers over every line of {@code lines} (one string column), counted. */
    public static long[] count(Dataset<Row> lines, int[] spec) {
        return merge(lines.queryExecution().toRdd().toJavaRDD().mapPartitions(new RowCounter(spec)).collect());
    }

    /**
     * The same over {@code files} (the files Spark's text reader would read, as the URIs
     * {@code Dataset.inputFiles} gives), read by the LineRecordReader the text source uses with "\n"
     * alone ending a line: the same lines, without a Spark SQL row each. Null when a file's path has a
     * glob character or its name is one Hadoop's FileInputFormat hides (_x, .x): it would not read
     * that file as named.
     */
    public static long[] countFiles(JavaSparkContext sc, String[] files, int[] spec)
            throws java.io.IOException, java.net.URISyntaxException {
        Configuration conf = new Configuration(sc.hadoopConfiguration());
        conf.set("textinputformat.record.delimiter", "\n");
        Job job = Job.getInstance(conf);
        Path[] paths = new Path[files.length];
        for (int i = 0; i < files.length; i++) {
            paths[i] = new Path(new java.net.URI(files[i]));
            String name = paths[i].getName();
            String path = paths[i].toUri().getPath();
            if (name.startsWith("_") || name.startsWith(".") || path.matches(".*[*?\\[\\]{}\\\\].*")) {
                return null;
            }
        }
        FileInputFormat.setInputPaths(job, paths);
        return merge(sc.newAPIHadoopRDD(job.getConfiguration(), TextInputFormat.class, LongWritable.class, Text.class)
                .mapPartitions(new TextCounter(spec)).collect());
    }
}
