// The `service` block of a rollout config: who may call `rlf rollout serve`, and which inference
// servers a request may send the service to (`inference.urls` in a request).
//
//   service:
//     auth: { api_keys_env: RLF_ROLLOUT_API_KEYS }   # callers send authorization: Bearer KEY
//     allowed_inference_urls: [http://gpu-0:8000, http://gpu-1, "*"]
//     allow_loopback_inference: true
import { z } from "zod";

export const serviceConfigSchema = z.strictObject({
  /** Off by default; with it every call but `/healthz` and gRPC health needs one of the keys. */
  auth: z.strictObject({ api_keys_env: z.string().min(1) }).optional(),
  /**
   * Servers a request's `inference.urls` may name besides the config's own `inference.urls` (always
   * allowed) and loopback: `http://host:port` (that server), `http://host` (any port on that host),
   * or `*` (any server; only on a network where every caller is trusted).
   */
  allowed_inference_urls: z.array(z.string().min(1)).default([]),
  /** Whether a request may name a server on this machine's loopback (127.0.0.0/8, ::1, localhost). */
  allow_loopback_inference: z.boolean().default(true),
});

export type ServiceConfig = z.output<typeof serviceConfigSchema>;
