// One service's Prometheus registry. Every metric of a service is named `rlf_<service>_…`, the
// service's own and the standard Node.js process metrics alike: `rlf_gateway_calls_total`,
// `rlf_gateway_process_cpu_user_seconds_total`, `rlf_gateway_nodejs_eventloop_lag_seconds`. The prefix
// is built here from the service name, once, so it cannot come out doubled.
import { collectDefaultMetrics, Registry } from "prom-client";

const SERVICE_NAME = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;

/** `rlf_<service>_`: the prefix of every metric the service exports. */
export function metricPrefix(service: string): string {
  if (!SERVICE_NAME.test(service) || service.startsWith("rlf_")) {
    throw new Error(
      `metric service name ${JSON.stringify(service)} must be snake_case letters and digits, without the rlf_ prefix`,
    );
  }
  return `rlf_${service}_`;
}

/** A fresh registry for one service, with the default Node.js process metrics under `rlf_<service>_`. */
export function createServiceRegistry(service: string): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: metricPrefix(service) });
  return registry;
}
