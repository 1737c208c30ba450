// `npm version <v>` runs this (package.json's "version" script) after it set package.json's
// version: manifest.json takes the same version and versions.json maps it to the minAppVersion,
// as Obsidian's community plugin list reads them. npm then commits and tags the three files.
import { readFileSync, writeFileSync } from "node:fs";

const version = process.env.npm_package_version ?? JSON.parse(readFileSync("package.json", "utf8")).version;
const manifest = JSON.parse(readFileSync("manifest.json", "utf8"));
manifest.version = version;
writeFileSync("manifest.json", `${JSON.stringify(manifest, null, 2)}\n`);
const versions = JSON.parse(readFileSync("versions.json", "utf8"));
versions[version] = manifest.minAppVersion;
writeFileSync("versions.json", `${JSON.stringify(versions, null, 2)}\n`);
process.stdout.write(`version-bump: manifest.json and versions.json at ${version} (minAppVersion ${manifest.minAppVersion})\n`);
