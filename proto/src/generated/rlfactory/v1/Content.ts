// Original file: proto/rlfactory/v1/gateway.proto

import type { TextContent as _rlfactory_v1_TextContent, TextContent__Output as _rlfactory_v1_TextContent__Output } from '../../rlfactory/v1/TextContent.ts';
import type { ImageContent as _rlfactory_v1_ImageContent, ImageContent__Output as _rlfactory_v1_ImageContent__Output } from '../../rlfactory/v1/ImageContent.ts';
import type { AudioContent as _rlfactory_v1_AudioContent, AudioContent__Output as _rlfactory_v1_AudioContent__Output } from '../../rlfactory/v1/AudioContent.ts';
import type { EmbeddedResource as _rlfactory_v1_EmbeddedResource, EmbeddedResource__Output as _rlfactory_v1_EmbeddedResource__Output } from '../../rlfactory/v1/EmbeddedResource.ts';
import type { ResourceLink as _rlfactory_v1_ResourceLink, ResourceLink__Output as _rlfactory_v1_ResourceLink__Output } from '../../rlfactory/v1/ResourceLink.ts';

export interface Content {
  'text'?: (_rlfactory_v1_TextContent | null);
  'image'?: (_rlfactory_v1_ImageContent | null);
  'audio'?: (_rlfactory_v1_AudioContent | null);
  'resource'?: (_rlfactory_v1_EmbeddedResource | null);
  'resource_link'?: (_rlfactory_v1_ResourceLink | null);
  'kind'?: "text"|"image"|"audio"|"resource"|"resource_link";
}

export interface Content__Output {
  'text'?: (_rlfactory_v1_TextContent__Output | null);
  'image'?: (_rlfactory_v1_ImageContent__Output | null);
  'audio'?: (_rlfactory_v1_AudioContent__Output | null);
  'resource'?: (_rlfactory_v1_EmbeddedResource__Output | null);
  'resource_link'?: (_rlfactory_v1_ResourceLink__Output | null);
  'kind'?: "text"|"image"|"audio"|"resource"|"resource_link";
}
