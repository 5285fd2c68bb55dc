// Reference side of the HdrHistogram interoperability test (see run_interop.sh): records the
// same deterministic values as hdr_interop_driver.cc into an org.HdrHistogram.Histogram, or
// decodes what the C++ side wrote, and prints the figures both sides must agree on exactly.
//
//   java -cp /usr/share/java/hdrhistogram.jar HdrInterop.java write <case> <file>
//       writes <file> (compressed V2) and <file>.raw (uncompressed V2), prints the figures
//   java -cp /usr/share/java/hdrhistogram.jar HdrInterop.java read <case> <file>
//       decodes <file> with Histogram.decodeFromCompressedByteBuffer, prints the figures
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Arrays;
import org.HdrHistogram.Histogram;

public class HdrInterop {
  // splitmix64, bit-identical to the C++ driver's generator.
  static long state;

  static long next() {
    state += 0x9E3779B97F4A7C15L;
    long z = state;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  static Histogram build(String name) {
    Histogram h;
    int n;
    if (name.equals("default")) {
      h = new Histogram(1, 3600000000000L, 3);
      n = 100000;
    } else if (name.equals("coarse")) {
      h = new Histogram(1000, 3600000000000L, 2);
      n = 20000;
    } else if (name.equals("positive")) {
      h = new Histogram(1, 3600000000000L, 3);
      n = 50000;
    } else if (name.equals("empty")) {
      return new Histogram(1, 3600000000000L, 3);
    } else {
      throw new IllegalArgumentException("unknown case " + name);
    }
    state = 20240601L;
    for (int i = 0; i < n; i++) {
      int bits = (int) ((next() >>> 32) % 42);  // magnitudes 0 .. 2^41 (< 1 h in ns)
      long v = bits == 0 ? 0 : (next() >>> (64 - bits));
      if (name.equals("positive")) v += 1;  // no zeros: min is a real bucket
      if (i % 1000 == 999) {
        h.recordValueWithCount(v, 7);
      } else {
        h.recordValue(v);
      }
    }
    return h;
  }

  static void print(Histogram h) {
    System.out.println("lowest=" + h.getLowestDiscernibleValue());
    System.out.println("highest=" + h.getHighestTrackableValue());
    System.out.println("digits=" + h.getNumberOfSignificantValueDigits());
    System.out.println("total=" + h.getTotalCount());
    System.out.println("min=" + h.getMinValue());
    System.out.println("max=" + h.getMaxValue());
    for (double p : new double[] {0.0, 50.0, 90.0, 99.0, 99.9, 99.99, 100.0}) {
      System.out.println("p" + p + "=" + h.getValueAtPercentile(p));
    }
    // Doubles as raw bits: exact comparison, no decimal formatting differences.
    System.out.println(String.format("mean_bits=%016x", Double.doubleToRawLongBits(h.getMean())));
    System.out.println(
        String.format("stddev_bits=%016x", Double.doubleToRawLongBits(h.getStdDeviation())));
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 3) throw new IllegalArgumentException("usage: write|read <case> <file>");
    if (args[0].equals("write")) {
      Histogram h = build(args[1]);
      ByteBuffer compressed = ByteBuffer.allocate(h.getNeededByteBufferCapacity());
      int n = h.encodeIntoCompressedByteBuffer(compressed);
      Files.write(Paths.get(args[2]), Arrays.copyOf(compressed.array(), n));
      ByteBuffer raw = ByteBuffer.allocate(h.getNeededByteBufferCapacity());
      n = h.encodeIntoByteBuffer(raw);
      Files.write(Paths.get(args[2] + ".raw"), Arrays.copyOf(raw.array(), n));
      print(h);
    } else if (args[0].equals("read")) {
      byte[] bytes = Files.readAllBytes(Paths.get(args[2]));
      print(Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(bytes), 0));
    } else {
      throw new IllegalArgumentException("mode must be write or read");
    }
  }
}
