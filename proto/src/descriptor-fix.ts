// protobufjs names the implicit entry type of a `map<K, V> reward_components` field `Reward_components`;
// protoc names it `RewardComponentsEntry`, and strict descriptor readers (grpcurl, Go's protoreflect)
// reject any other name ("incorrect implicit map entry name"). This renames map entry types in the
// file descriptors handed to the reflection service.
import type { PackageDefinition } from "@grpc/proto-loader";
import descriptor from "protobufjs/ext/descriptor/index.js";

interface FieldDescriptor {
  name?: string;
  typeName?: string;
}

interface MessageDescriptor {
  name?: string;
  field?: FieldDescriptor[];
  nestedType?: (MessageDescriptor & { options?: { mapEntry?: boolean } })[];
}

interface DescriptorCodec {
  decode(bytes: Uint8Array): unknown;
  encode(message: unknown): { finish(): Uint8Array };
}

/** protoc's entry name for a map field: `reward_components` → `RewardComponentsEntry`. */
export function mapEntryName(fieldName: string): string {
  let name = "";
  let upperNext = true;
  for (const c of fieldName) {
    if (c === "_") upperNext = true;
    else {
      name += upperNext ? c.toUpperCase() : c;
      upperNext = false;
    }
  }
  return `${name}Entry`;
}

function fixMessage(message: MessageDescriptor): boolean {
  let changed = false;
  for (const nested of message.nestedType ?? []) changed = fixMessage(nested) || changed;
  for (const field of message.field ?? []) {
    const typeName = field.typeName;
    if (!typeName || !field.name) continue;
    const shortName = typeName.slice(typeName.lastIndexOf(".") + 1);
    const entry = message.nestedType?.find((n) => n.options?.mapEntry && n.name === shortName);
    const want = mapEntryName(field.name);
    if (!entry || entry.name === want) continue;
    entry.name = want;
    field.typeName = `${typeName.slice(0, typeName.length - shortName.length)}${want}`;
    changed = true;
  }
  return changed;
}

/** Rewrites, in place, every file descriptor of `definition` that has a misnamed map entry. */
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
