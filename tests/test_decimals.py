"""DECIMAL helpers: the precision a FIXED_LEN_BYTE_ARRAY length allows."""

from __future__ import annotations

import sys

from parquet_codec import decimals


def test_max_precision_counts_the_digits_of_the_largest_value():
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        for n in range(1, 2500):
            assert decimals.max_precision(n) == len(str((1 << (8 * n - 1)) - 1)) - 1, n
    finally:
        sys.set_int_max_str_digits(old)
    assert [decimals.max_precision(n) for n in (0, 1, 4, 8, 16, 32)] == [0, 2, 9, 18, 38, 76]


def test_max_precision_of_a_hostile_length():
    # A footer may declare any type_length; building its largest value would
    # take a 256 MiB integer (and str() refuses past 4,300 digits).
    assert decimals.max_precision(2**31 - 1) == 5_171_655_943
