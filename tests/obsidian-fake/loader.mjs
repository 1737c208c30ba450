// Node module hook: `import … from "obsidian"` resolves to the fake (tests only).
export async function resolve(specifier, context, next) {
  if (specifier === "obsidian") return { url: new URL("./index.ts", import.meta.url).href, shortCircuit: true };
  return next(specifier, context);
}
