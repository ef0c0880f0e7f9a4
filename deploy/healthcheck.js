// The image's HEALTHCHECK: GET $RLF_HEALTH_URL (default http://127.0.0.1:8080/healthz, the gateway's
// admin port) and exit 0 on a 2xx answer, 1 otherwise. Each service sets the URL of its own health
// endpoint (a tool server: http://127.0.0.1:PORT/healthz; see deploy/README.md).
const raw = process.env.RLF_HEALTH_URL || "http://127.0.0.1:8080/healthz";
let url;
try {
  url = new URL(raw);
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error("not an http(s) URL");
} catch (err) {
  process.stderr.write(`RLF_HEALTH_URL=${JSON.stringify(raw)} is not a valid http(s) URL: ${err.message}\n`);
  process.exit(2);
}
try {
  const res = await fetch(url, { signal: AbortSignal.timeout(4000) });
  process.stdout.write(`${url.href} ${res.status}\n`);
  process.exit(res.ok ? 0 : 1);
} catch (err) {
  process.stderr.write(`${url.href} unreachable: ${err.cause?.message ?? err.message}\n`);
  process.exit(1);
}
