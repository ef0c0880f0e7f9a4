// Raw grpc-js unary echo server (benchmark baseline). Prints {"port": n} on stdout when listening.
import {
  type GrpcObject,
  loadPackageDefinition,
  Server,
  ServerCredentials,
  type ServiceClientConstructor,
} from "@grpc/grpc-js";
import { loadSync } from "@grpc/proto-loader";

const definition = loadSync(new URL("./echo.proto", import.meta.url).pathname, { keepCase: true });
const pkg = (loadPackageDefinition(definition).rlfactory as GrpcObject).bench as GrpcObject;
const server = new Server();
server.addService((pkg.Echo as ServiceClientConstructor).service, {
  Echo: (call: { request: unknown }, callback: (err: null, res: unknown) => void) =>
    callback(null, call.request),
});
server.bindAsync("127.0.0.1:0", ServerCredentials.createInsecure(), (err, port) => {
  if (err) throw err;
  process.stdout.write(`${JSON.stringify({ port })}\n`);
});
process.on("SIGTERM", () => server.forceShutdown());
