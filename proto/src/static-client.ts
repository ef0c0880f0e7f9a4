// grpc-js client classes over a generated static codec (src/generated/codec, see
// scripts/gen-proto-types.ts): no .proto is parsed at run time, and neither @grpc/proto-loader nor the
// full protobufjs is loaded, only protobufjs/minimal. Messages are converted exactly as proto-loader's
// serializers convert them with PROTO_LOADER_OPTIONS (fromObject → encode; decode → toObject), so a
// caller sees the same objects as from a loadServiceProto client (clients/src/gateway-codec.test.ts).
import {
  makeGenericClientConstructor,
  type ServiceClientConstructor,
  type ServiceDefinition,
} from "@grpc/grpc-js";
import type { IConversionOptions, Writer } from "protobufjs";
import { PROTO_LOADER_OPTIONS } from "./loader-options.ts";

/** One message type of a static codec (the static methods pbjs generates). */
export interface StaticMessageType {
  readonly name: string;
  encode(message: never): Writer;
  decode(bytes: Uint8Array): unknown;
  fromObject(object: { [k: string]: unknown }): unknown;
  toObject(message: never, options?: IConversionOptions): { [k: string]: unknown };
}

/** One method of a generated service table (`<file>-services.ts`). */
export interface StaticMethod {
  path: string;
  originalName: string;
  requestStream: boolean;
  responseStream: boolean;
  requestType: StaticMessageType;
  responseType: StaticMessageType;
}

/** One service of a generated service table: its full name and its methods by name. */
export interface StaticService {
  name: string;
  methods: Readonly<Record<string, StaticMethod>>;
}

const CONVERSION = PROTO_LOADER_OPTIONS as IConversionOptions;

function serializer(type: StaticMessageType): (value: object) => Buffer {
  return (value) => {
    if (Array.isArray(value))
      throw new Error(
        `Failed to serialize message: expected object with ${type.name} structure, got array instead`,
      );
    return type.encode(type.fromObject(value as { [k: string]: unknown }) as never).finish() as Buffer;
  };
}

function deserializer(type: StaticMessageType): (bytes: Buffer) => { [k: string]: unknown } {
  return (bytes) => type.toObject(type.decode(bytes) as never, CONVERSION);
}

/** grpc-js's definition of `service` (paths, streaming flags, serializers), as proto-loader builds it. */
export function staticServiceDefinition(service: StaticService): ServiceDefinition {
  const definition: Record<string, ServiceDefinition[string]> = {};
  for (const [name, m] of Object.entries(service.methods)) {
    definition[name] = {
      path: m.path,
      originalName: m.originalName,
      requestStream: m.requestStream,
      responseStream: m.responseStream,
      requestSerialize: serializer(m.requestType),
      requestDeserialize: deserializer(m.requestType),
      responseSerialize: serializer(m.responseType),
      responseDeserialize: deserializer(m.responseType),
    };
  }
  return definition;
}

/** The grpc-js client class of `service`: methods by their proto name and their camelCase name. */
export function staticClientConstructor(service: StaticService): ServiceClientConstructor {
  return makeGenericClientConstructor(staticServiceDefinition(service), service.name);
}
