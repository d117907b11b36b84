// Validates every manifest in a directory against the Kubernetes OpenAPI
// schema of its apiVersion/kind (kubernetes-models bundles the schemas and
// ajv). Missing required fields and wrong types fail; note that this schema
// does not reject unknown fields (check_kubernetes.py checks the fields the
// deployment relies on by name).
// usage: node validate.mjs MANIFESTS.json   ([{file, doc}], from the YAML)
import fs from "node:fs";
const yaml = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
let failed = 0, passed = 0;
for (const { file, doc } of yaml) {
  const mod = `kubernetes-models/${doc.apiVersion}/${doc.kind}`;
  let Model;
  try {
    Model = (await import(mod))[doc.kind];
  } catch (e) {
    console.log(`FAIL: ${file}: no schema for ${doc.apiVersion} ${doc.kind}`);
    failed++;
    continue;
  }
  try {
    new Model(doc).validate();
    console.log(`ok:   ${file}: ${doc.kind} ${doc.metadata.name}`);
    passed++;
  } catch (e) {
    console.log(`FAIL: ${file}: ${doc.kind} ${doc.metadata?.name}: ${e.message}`);
    failed++;
  }
}
console.log(`k8s schema: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
