"""Shared fixtures."""

from __future__ import annotations

import pytest

import rankkit


@pytest.fixture
def con():
    """A fresh in-memory connection with the macros loaded."""
    return rankkit.connect()


@pytest.fixture(scope="session")
def spark():
    """One local Spark session for every Spark test module (tests/test_spark*.py), ANSI on (Spark 4's
    default, where a division by zero raises): starting one costs seconds, and pyspark keeps its JVM,
    with the memory it started with, for the process anyway."""
    from rankkit.spark import session

    spark = session("local[2]", memory="2g")
    spark.conf.set("spark.sql.ansi.enabled", "true")
    spark.conf.set("spark.sql.execution.arrow.pyspark.enabled", "true")
    yield spark
    spark.stop()
