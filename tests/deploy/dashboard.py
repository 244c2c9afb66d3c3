"""Loads a Grafana dashboard with Grafana's own SDK (grafana-foundation-sdk) and prints every
panel's Prometheus queries as JSON, for the test to run against a real Prometheus. Fails when the
SDK cannot read a panel's options as its type's or a query as Prometheus's."""
import json
import sys

from grafana_foundation_sdk.cog.plugins import register_default_plugins
from grafana_foundation_sdk.cog.runtime import panelcfg_config
from grafana_foundation_sdk.models import prometheus
from grafana_foundation_sdk.models.dashboard import Dashboard, RowPanel

register_default_plugins()
with open(sys.argv[1], encoding="utf-8") as f:
    raw = json.load(f)
dashboard = Dashboard.from_json(raw)
queries = []
for panel in dashboard.panels or []:
    if isinstance(panel, RowPanel):
        continue
    if panelcfg_config(panel.type_val) is None:
        sys.exit(f"panel {panel.title!r}: the SDK knows no panel of type {panel.type_val!r}")
    if isinstance(panel.options, dict):
        sys.exit(f"panel {panel.title!r}: its options are not {panel.type_val}'s")
    if not panel.targets:
        sys.exit(f"panel {panel.title!r} has no query")
    for target in panel.targets:
        if not isinstance(target, prometheus.Dataquery) or not target.expr:
            sys.exit(f"panel {panel.title!r}: a query the SDK does not read as Prometheus's")
        queries.append({"panel": panel.title, "ref": target.ref_id, "expr": target.expr})
variables = [v.name for v in dashboard.templating.list_val or []]
print(json.dumps({"title": dashboard.title, "schema_version": dashboard.schema_version, "variables": variables, "queries": queries}))
