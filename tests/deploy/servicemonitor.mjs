// Checks ServiceMonitors and PrometheusRules against the Prometheus operator's own schema
// (@kubernetes-models/prometheus-operator, generated from its CRDs): every
// document of every file named; exits non-zero on the first that fails.
import fs from "node:fs";
import { loadAll } from "js-yaml";
import { PrometheusRule, ServiceMonitor } from "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1";

const kinds = { ServiceMonitor, PrometheusRule };
for (const file of process.argv.slice(2)) {
  for (const doc of loadAll(fs.readFileSync(file, "utf8"))) {
    const Kind = kinds[doc.kind];
    if (!Kind) throw new Error(`${file}: ${doc.kind} is not a kind this check knows`);
    new Kind(doc).validate();
    console.log(`${file}: ${doc.kind}/${doc.metadata.name} passed`);
  }
}
