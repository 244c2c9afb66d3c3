// Checks ServiceMonitors against the Prometheus operator's own schema
// (@kubernetes-models/prometheus-operator, generated from its CRDs): every
// document of every file named; exits non-zero on the first that fails.
import fs from "node:fs";
import { loadAll } from "js-yaml";
import { ServiceMonitor } from "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1";

for (const file of process.argv.slice(2)) {
  for (const doc of loadAll(fs.readFileSync(file, "utf8"))) {
    new ServiceMonitor(doc).validate();
    console.log(`${file}: ${doc.kind}/${doc.metadata.name} passed`);
  }
}
