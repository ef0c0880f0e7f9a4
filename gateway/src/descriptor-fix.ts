// protobufjs names the implicit entry type of a `map<K, V> foo` field `Foo` instead of `FooEntry`,
// and strict descriptor readers (grpcurl, Go's protoreflect) reject the file. The only map in what
// we serve is grpc.health.v1's `HealthListResponse.statuses`; this renames such entry types in the
// descriptors handed to the reflection service.
import type { PackageDefinition } from "@grpc/proto-loader";
import descriptor from "protobufjs/ext/descriptor/index.js";

interface MessageDescriptor {
  name?: string;
  field?: { typeName?: string }[];
  nestedType?: (MessageDescriptor & { options?: { mapEntry?: boolean } })[];
}

function fixMessage(message: MessageDescriptor): boolean {
  let changed = false;
  for (const nested of message.nestedType ?? []) {
    changed = fixMessage(nested) || changed;
    if (!nested.options?.mapEntry || !nested.name || nested.name.endsWith("Entry")) continue;
    const old = nested.name;
    nested.name = `${old}Entry`;
    for (const field of message.field ?? []) {
      if (field.typeName === old) field.typeName = nested.name;
      else if (field.typeName?.endsWith(`.${old}`)) field.typeName = `${field.typeName}Entry`;
    }
    changed = true;
  }
  return changed;
}

export function fixMapEntryNames(definition: PackageDefinition): PackageDefinition {
  const FileDescriptorProto = (descriptor as unknown as { FileDescriptorProto: DescriptorCodec })
    .FileDescriptorProto;
  const fixed = new Map<string, Buffer>();
  for (const value of Object.values(definition)) {
    const protos = (value as { fileDescriptorProtos?: Buffer[] }).fileDescriptorProtos;
    if (!protos) continue;
    protos.forEach((bytes, i) => {
      const key = bytes.toString("base64");
      let replacement = fixed.get(key);
      if (!replacement) {
        const file = FileDescriptorProto.decode(bytes) as { messageType?: MessageDescriptor[] };
        const changed = (file.messageType ?? []).map(fixMessage).some(Boolean);
        replacement = changed ? Buffer.from(FileDescriptorProto.encode(file).finish()) : bytes;
        fixed.set(key, replacement);
      }
      protos[i] = replacement;
    });
  }
  return definition;
}

interface DescriptorCodec {
  decode(bytes: Uint8Array): unknown;
  encode(message: unknown): { finish(): Uint8Array };
}
