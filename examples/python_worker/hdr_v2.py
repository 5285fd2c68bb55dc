"""HdrHistogram V2 for benchgate's fixed layout: 1 ns .. 1 h, 3 significant digits.

Only what a worker needs: record values into the reference bucket layout and write the
standard V2 compressed encoding (big-endian header, ZigZag LEB128 counts with runs of empty
buckets as negative lengths, zlib), which every HdrHistogram implementation decodes.
"""
import struct
import zlib

LOWEST = 1
HIGHEST = 3_600_000_000_000  # 1 h in nanoseconds
DIGITS = 3

# The reference layout, derived as HdrHistogram does from (LOWEST, HIGHEST, DIGITS).
_UNIT_MAGNITUDE = LOWEST.bit_length() - 1  # floor(log2(lowest)) = 0
_SINGLE_UNIT = 2 * 10**DIGITS  # largest value with single-unit resolution
_SUB_BUCKET_COUNT_MAGNITUDE = (_SINGLE_UNIT - 1).bit_length()  # ceil(log2(2000)) = 11
_SUB_BUCKET_HALF_COUNT_MAGNITUDE = _SUB_BUCKET_COUNT_MAGNITUDE - 1
_SUB_BUCKET_COUNT = 1 << _SUB_BUCKET_COUNT_MAGNITUDE
_SUB_BUCKET_HALF_COUNT = _SUB_BUCKET_COUNT // 2
_SUB_BUCKET_MASK = (_SUB_BUCKET_COUNT - 1) << _UNIT_MAGNITUDE


def _bucket_count():
    smallest_untrackable = _SUB_BUCKET_COUNT << _UNIT_MAGNITUDE
    buckets = 1
    while smallest_untrackable <= HIGHEST:
        if smallest_untrackable > (2**63 - 1) // 2:
            return buckets + 1
        smallest_untrackable <<= 1
        buckets += 1
    return buckets


COUNTS_LENGTH = (_bucket_count() + 1) * _SUB_BUCKET_HALF_COUNT

_V2_COOKIE = 0x1C849303 | 0x10
_V2_COMPRESSED_COOKIE = 0x1C849304 | 0x10


def counts_index(value):
    """The bucket index of a value in nanoseconds (clamped to the trackable range)."""
    value = max(0, min(int(value), HIGHEST))
    bucket = (value | _SUB_BUCKET_MASK).bit_length() - _UNIT_MAGNITUDE - (
        _SUB_BUCKET_HALF_COUNT_MAGNITUDE + 1)
    sub_bucket = value >> (bucket + _UNIT_MAGNITUDE)
    return ((bucket + 1) << _SUB_BUCKET_HALF_COUNT_MAGNITUDE) + (sub_bucket -
                                                                  _SUB_BUCKET_HALF_COUNT)


class Histogram:
    """Counts by bucket index; sparse, so an idle histogram costs nothing."""

    def __init__(self):
        self.counts = {}
        self.total = 0

    def record(self, value_ns):
        index = counts_index(value_ns)
        self.counts[index] = self.counts.get(index, 0) + 1
        self.total += 1

    def add(self, other):
        for index, count in other.counts.items():
            self.counts[index] = self.counts.get(index, 0) + count
        self.total += other.total

    def encode_compressed(self):
        payload = bytearray()
        limit = max(self.counts) + 1 if self.counts else 1
        zeros = 0
        for index in range(limit):
            count = self.counts.get(index, 0)
            if count == 0:
                zeros += 1
                continue
            _flush_zeros(payload, zeros)
            zeros = 0
            _put_zigzag(payload, count)
        _flush_zeros(payload, zeros)
        header = struct.pack(">Iiiiqqd", _V2_COOKIE, len(payload), 0, DIGITS, LOWEST, HIGHEST,
                             1.0)
        deflated = zlib.compress(bytes(header) + bytes(payload))
        return struct.pack(">II", _V2_COMPRESSED_COOKIE, len(deflated)) + deflated


def _flush_zeros(out, zeros):
    # A single empty bucket is written as a 0 count; two or more as the negated run length.
    if zeros == 1:
        _put_zigzag(out, 0)
    elif zeros > 1:
        _put_zigzag(out, -zeros)


def _put_zigzag(out, value):
    """ZigZag then LEB128 as HdrHistogram writes it: at most 9 bytes, the ninth holds 8 bits."""
    v = ((value << 1) ^ (value >> 63)) & 0xFFFFFFFFFFFFFFFF
    for _ in range(8):
        if v < 0x80:
            out.append(v)
            return
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v & 0xFF)
