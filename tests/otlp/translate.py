"""The standard OpenTelemetry-to-Prometheus name translation, run by an
implementation of it: the OpenTelemetry Python SDK's Prometheus exporter
(opentelemetry-exporter-prometheus from PyPI), fed the metrics exa sent.

    python translate.py REQUESTS_JSONL

REQUESTS_JSONL holds what tests/otlp/receiver.py wrote (protobuf's JSON
mapping of each OTLP request). For every metric, by name, this prints one
JSON line: {"name", "unit", "kind", "prometheus", "type"} where
"prometheus" is the family name the exporter exposes in the text format
(a counter with its `_total`) and "type" the family's TYPE.
"""
import json
import sys

from opentelemetry.exporter.prometheus import _CustomCollector
from opentelemetry.sdk.metrics.export import (
    AggregationTemporality,
    Gauge,
    Histogram,
    HistogramDataPoint,
    Metric,
    MetricsData,
    NumberDataPoint,
    ResourceMetrics,
    ScopeMetrics,
    Sum,
)
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.util.instrumentation import InstrumentationScope
from prometheus_client import CollectorRegistry, generate_latest


def points(data):
    out = []
    for p in data.get("dataPoints", []):
        value = p.get("asDouble", p.get("asInt", 0))
        out.append(NumberDataPoint(attributes={}, start_time_unix_nano=0, time_unix_nano=1, value=float(value)))
    return out or [NumberDataPoint(attributes={}, start_time_unix_nano=0, time_unix_nano=1, value=1.0)]


def translate(m):
    name, unit, desc = m["name"], m.get("unit", ""), m.get("description", "")
    if "gauge" in m:
        data, kind = Gauge(data_points=points(m["gauge"])), "gauge"
    elif "sum" in m:
        mono = bool(m["sum"].get("isMonotonic", False))
        data = Sum(data_points=points(m["sum"]), aggregation_temporality=AggregationTemporality.CUMULATIVE, is_monotonic=mono)
        kind = "counter" if mono else "updowncounter"
    else:
        hp = HistogramDataPoint(
            attributes={}, start_time_unix_nano=0, time_unix_nano=1, count=1, sum=1.0,
            bucket_counts=[1, 0], explicit_bounds=[10.0], min=1.0, max=1.0,
        )
        data, kind = Histogram(data_points=[hp], aggregation_temporality=AggregationTemporality.CUMULATIVE), "histogram"
    collector = _CustomCollector(disable_target_info=True, scope_info_enabled=False)
    metric = Metric(name=name, description=desc, unit=unit, data=data)
    scope = ScopeMetrics(scope=InstrumentationScope("exa"), metrics=[metric], schema_url="")
    collector.add_metrics_data(MetricsData(resource_metrics=[ResourceMetrics(resource=Resource({}), scope_metrics=[scope], schema_url="")]))
    registry = CollectorRegistry(auto_describe=False)
    registry.register(collector)
    text = generate_latest(registry).decode()
    types = [l.split(" ")[2:4] for l in text.splitlines() if l.startswith("# TYPE ")]
    prom, typ = types[0]
    return {"name": name, "unit": unit, "kind": kind, "prometheus": prom, "type": typ}


seen = {}
with open(sys.argv[1]) as f:
    for line in f:
        req = json.loads(line)["request"]
        for rm in req.get("resourceMetrics", []):
            for sm in rm.get("scopeMetrics", []):
                for m in sm.get("metrics", []):
                    seen.setdefault(m["name"], m)
for m in seen.values():
    print(json.dumps(translate(m)))
