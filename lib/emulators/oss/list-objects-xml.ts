/**
 * The ListBucketResult documents of ListObjects and ListObjectsV2, element for element as OSS
 * documents them (OSS API reference "ListObjects (GetBucket)" / "ListObjectsV2 (GetBucketV2)"):
 * - V1: Name, Prefix, Marker, MaxKeys, Delimiter, [EncodingType], IsTruncated, [NextMarker],
 *   Contents*, CommonPrefixes*. Every Contents has an Owner (ali-oss's list() reads Owner.ID
 *   unconditionally).
 * - V2: Name, Prefix, [StartAfter], [ContinuationToken], MaxKeys, Delimiter, [EncodingType],
 *   IsTruncated, [NextContinuationToken], KeyCount (objects plus common prefixes returned),
 *   Contents* (Owner only with fetch-owner=true), CommonPrefixes*.
 * - Contents: Key, LastModified (ISO 8601 with milliseconds), ETag, Type (Normal), Size,
 *   StorageClass (Standard)[, Owner].
 * - With encoding-type=url the names (Key, Prefix, Marker, StartAfter, NextMarker, Delimiter) are
 *   URL-encoded.
 */
import { encodeContinuationToken, type ListPage, type ListParams } from './list-objects.js';
import { rfc3986 } from './signature-v4.js';
import { element, xmlDocument } from './xml.js';

/** The emulated account that owns every object. */
const OWNER_ID = '1000000000000000';

function renderContents(page: ListPage, _params: ListParams, withOwner: boolean, name: (text: string) => string): string[] {
  const rendered: string[] = [];
  for (const entry of page.entries) {
    if (entry.kind !== 'object') continue;
    rendered.push(
      '<Contents>' +
        element('Key', name(entry.key)) +
        element('LastModified', entry.object.lastModified.toISOString()) +
        element('ETag', entry.object.etag) +
        element('Type', 'Normal') +
        element('Size', entry.object.body.length) +
        element('StorageClass', 'Standard') +
        (withOwner ? `<Owner>${element('ID', OWNER_ID)}${element('DisplayName', OWNER_ID)}</Owner>` : '') +
        '</Contents>',
    );
  }
  for (const entry of page.entries) {
    if (entry.kind === 'prefix') rendered.push(`<CommonPrefixes>${element('Prefix', name(entry.prefix))}</CommonPrefixes>`);
  }
  return rendered;
}

export function listObjectsXml(bucket: string, params: ListParams, page: ListPage): string {
  const name = (text: string): string => (params.encodeUrl ? rfc3986(text) : text);
  const children = [element('Name', bucket), element('Prefix', name(params.prefix))];
  if (params.version === 1) {
    children.push(element('Marker', name(params.marker)), element('MaxKeys', params.maxKeys), element('Delimiter', name(params.delimiter)));
    if (params.encodeUrl) children.push(element('EncodingType', 'url'));
    children.push(element('IsTruncated', page.truncated));
    if (page.resumeAfter !== undefined) children.push(element('NextMarker', name(page.resumeAfter)));
    return xmlDocument('ListBucketResult', [...children, ...renderContents(page, params, true, name)]);
  }
  if (params.startAfter !== undefined) children.push(element('StartAfter', name(params.startAfter)));
  if (params.continuationToken !== undefined) children.push(element('ContinuationToken', params.continuationToken));
  children.push(element('MaxKeys', params.maxKeys), element('Delimiter', name(params.delimiter)));
  if (params.encodeUrl) children.push(element('EncodingType', 'url'));
  children.push(element('IsTruncated', page.truncated));
  if (page.resumeAfter !== undefined) children.push(element('NextContinuationToken', encodeContinuationToken(page.resumeAfter)));
  children.push(element('KeyCount', page.entries.length));
  return xmlDocument('ListBucketResult', [...children, ...renderContents(page, params, params.fetchOwner, name)]);
}
