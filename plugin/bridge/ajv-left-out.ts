// What the plugin bundle (main.js) has in place of the MCP SDK's Ajv validator
// (@modelcontextprotocol/sdk/…/validation/ajv-provider.js; esbuild.config.mjs resolves it here
// for main.js only). The SDK's server makes its default validator only when given none, and
// Strata's servers are always given theirs (mcp-server.ts NO_ELICITATION): this class is never
// made, and Ajv (~280 KB with its formats and URI parser) stays out of the plugin.

import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";

export class AjvJsonSchemaValidator implements jsonSchemaValidator {
  constructor() {
    throw new Error("the MCP SDK's Ajv validator is left out of Strata's plugin bundle; give the server a validator of its own");
  }

  getValidator<T>(_schema: JsonSchemaType): JsonSchemaValidator<T> {
    throw new Error("unreachable: this validator is never made");
  }
}
