// `npm run contract:snapshot`: at a release, after CHANGELOG.md got the release's heading,
// keep the contract as released (contract/openapi.json, contract/schema.graphql and the
// version) for the breaking-change gate to compare later changes against.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { changelogPath, contractDir, currentContract, newestVersion } from './contract.ts';

const version = newestVersion(readFileSync(changelogPath, 'utf8'));
const contract = currentContract(version);
mkdirSync(contractDir, { recursive: true });
writeFileSync(path.join(contractDir, 'openapi.json'), `${JSON.stringify(contract.openapi, null, 2)}\n`);
writeFileSync(path.join(contractDir, 'schema.graphql'), `${contract.graphql}\n`);
writeFileSync(path.join(contractDir, 'version'), `${version}\n`);
console.log(`contract/: the OpenAPI document and the GraphQL schema of ${version}`);
