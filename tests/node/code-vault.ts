// A small vault of notes and code (Python, TypeScript, Go, JSON, and code in a skipped folder)
// for the code tests: each definition does something a question can describe without its name.

import { mkdir, writeFile } from "node:fs/promises";
import * as path from "node:path";

import { tempDir } from "./helpers.ts";

export const CODE_FILES: Record<string, string> = {
  "src/auth/session.py": `"""Session handling for the HTTP client."""

import os
from urllib.parse import urlparse


class SessionRedirectMixin:
    """Behaviour shared by sessions that follow redirects."""

    def get_redirect_target(self, resp):
        """Receives a Response. Returns a redirect URI or None."""
        if resp.is_redirect:
            return resp.headers["location"]
        return None

    def rebuild_auth(self, prepared_request, response):
        """When being redirected we may want to strip authentication from the
        request to avoid leaking credentials to another host."""
        headers = prepared_request.headers
        url = prepared_request.url
        if "Authorization" in headers and self.should_strip_auth(response.request.url, url):
            del headers["Authorization"]


def parse_proxy_environment(env=os.environ):
    """Reads the proxy addresses from environment variables such as HTTPS_PROXY."""
    return {k.lower(): v for k, v in env.items() if k.lower().endswith("_proxy")}
`,
  "web/retry.ts": `// Retrying failed network calls.

export interface RetryOptions {
  attempts: number;
  baseDelayMs: number;
}

/** Calls fn until it succeeds, waiting exponentially longer between attempts (with jitter). */
export async function withExponentialBackoff<T>(fn: () => Promise<T>, opts: RetryOptions): Promise<T> {
  let lastError: unknown;
  for (let i = 0; i < opts.attempts; i++) {
    try {
      return await fn();
    } catch (err) {
      lastError = err;
      const wait = opts.baseDelayMs * 2 ** i * (0.5 + Math.random());
      await new Promise((r) => setTimeout(r, wait));
    }
  }
  throw lastError;
}
`,
  "cmd/server/main.go": `package main

import (
	"fmt"
	"net/http"
)

// healthHandler answers the load balancer's liveness probe with 200 OK.
func healthHandler(w http.ResponseWriter, r *http.Request) {
	w.WriteHeader(http.StatusOK)
	fmt.Fprintln(w, "ok")
}

func main() {
	http.HandleFunc("/healthz", healthHandler)
	http.ListenAndServe(":8080", nil)
}
`,
  "package.json": `{
  "name": "demo-app",
  "scripts": {
    "build": "tsc -p .",
    "test": "node --test"
  },
  "dependencies": {
    "left-pad": "1.3.0"
  }
}
`,
  "node_modules/left-pad/index.js": `module.exports = function leftPad(str, len, ch) {
  return String(ch || " ").repeat(Math.max(0, len - String(str).length)) + str;
};
`,
};

export const NOTES: Record<string, string> = {
  "Notes/Architecture.md":
    "# Architecture\n\nThe client follows redirects and retries failed calls.\n\n## Deployment\n\nThe server runs behind a load balancer.\n",
  "Notes/Sourdough.md": "# Sourdough\n\nFeed the starter with flour and water every day.\n",
};

/** A temp vault holding `files` (default: the notes and the code above). */
export async function makeVault(files: Record<string, string> = { ...NOTES, ...CODE_FILES }): Promise<string> {
  const vault = path.join(await tempDir("strata-code-"), "vault");
  for (const [rel, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(vault, rel)), { recursive: true });
    await writeFile(path.join(vault, rel), text);
  }
  return vault;
}

/** The line of `needle` (1-based) in a file of CODE_FILES. */
export function lineOf(file: string, needle: string): number {
  const i = CODE_FILES[file].split("\n").findIndex((l) => l.includes(needle));
  if (i < 0) throw new Error(`${needle} is not in ${file}`);
  return i + 1;
}
