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


def test_floor_unscaled_is_exact_at_any_number_of_digits():
    from decimal import Decimal

    big = Decimal("922337203685477580700.92230685477500000")  # 38 digits: a 28-digit context would round it
    assert decimals.floor_unscaled(big, 17, 40) == (92233720368547758070092230685477500000, True)
    assert decimals.floor_unscaled(Decimal("1.005"), 2, 10) == (100, False)
    assert decimals.floor_unscaled(Decimal("-1.005"), 2, 10) == (-101, False)  # floor, not truncation
    assert decimals.floor_unscaled(Decimal("-2.50"), 2, 10) == (-250, True)
    assert decimals.floor_unscaled(Decimal("0"), 5, 3) == (0, True)


def test_floor_unscaled_never_builds_a_huge_power():
    from decimal import Decimal

    # Exponents of a billion come back at once: clamped past ``digits``, or a fraction below one.
    assert decimals.floor_unscaled(Decimal("1E+999999999"), 2, 38) == (10**38, False)
    assert decimals.floor_unscaled(Decimal("-1E+999999999"), 2, 38) == (-(10**38) - 1, False)
    assert decimals.floor_unscaled(Decimal("1E-999999999"), 2, 38) == (0, False)
    assert decimals.floor_unscaled(Decimal("-1E-999999999"), 2, 38) == (-1, False)


def test_to_unscaled_refuses_what_does_not_fit_without_rounding():
    from decimal import Decimal

    import pytest

    from parquet_codec.errors import SchemaError

    assert decimals.to_unscaled(Decimal("1234567890123456789012345678901234.5678"), 38, 4, 0) == (
        12345678901234567890123456789012345678)
    with pytest.raises(SchemaError, match="has more than 4 fractional digits"):
        decimals.to_unscaled(Decimal("1.00001"), 38, 4, 3)
    with pytest.raises(SchemaError, match="does not fit DECIMAL"):
        decimals.to_unscaled(Decimal("1E+999999999"), 38, 4, 3)
