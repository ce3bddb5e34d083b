import { describe, expect, it } from 'vitest';
import { decodeKubeProtobuf, ProtobufError } from './protobuf.ts';

// What `kubectl create namespace foo` sends (captured with -v=9): the k8s magic,
// runtime.Unknown with typeMeta v1/Namespace, and the Namespace message with
// every optional string present but empty.
const createNamespaceFoo = Buffer.from(
  [
    '6b 38 73 00 0a 0f 0a 02 76 31 12 09 4e 61 6d 65',
    '73 70 61 63 65 12 1b 0a 13 0a 03 66 6f 6f 12 00',
    '1a 00 22 00 2a 00 32 00 38 00 42 00 12 00 1a 02',
    '0a 00 1a 00 22 00',
  ].join(' ').replace(/ /g, ''),
  'hex',
);

/** A hand-built envelope around a raw object message. */
function envelope(apiVersion: string, kind: string, raw: Buffer): Buffer {
  const str = (field: number, s: string | Buffer) => {
    const b = Buffer.isBuffer(s) ? s : Buffer.from(s);
    return Buffer.concat([Buffer.from([(field << 3) | 2, b.length]), b]);
  };
  const typeMeta = Buffer.concat([str(1, apiVersion), str(2, kind)]);
  return Buffer.concat([Buffer.from('k8s\0'), str(1, typeMeta), str(2, raw)]);
}

describe('protobuf request bodies', () => {
  it('decodes what kubectl create namespace sends, dropping empty optional fields', () => {
    expect(decodeKubeProtobuf(createNamespaceFoo)).toEqual({ kind: 'Namespace', apiVersion: 'v1', metadata: { name: 'foo' }, spec: {}, status: {} });
  });

  it('decodes a ConfigMap with labels, data and binaryData', () => {
    const field = (n: number, b: Buffer) => Buffer.concat([Buffer.from([(n << 3) | 2, b.length]), b]);
    const entry = (k: string, v: Buffer | string) => Buffer.concat([field(1, Buffer.from(k)), field(2, Buffer.isBuffer(v) ? v : Buffer.from(v))]);
    const meta = Buffer.concat([field(1, Buffer.from('cm')), field(3, Buffer.from('ns')), field(11, entry('app', 'x'))]);
    const raw = Buffer.concat([field(1, meta), field(2, entry('a', 'b')), field(2, entry('c', '')), field(3, entry('bin', Buffer.from([0, 1, 2]))), Buffer.from([0x20, 0x01])]);
    expect(decodeKubeProtobuf(envelope('v1', 'ConfigMap', raw))).toEqual({
      kind: 'ConfigMap',
      apiVersion: 'v1',
      metadata: { name: 'cm', namespace: 'ns', labels: { app: 'x' } },
      data: { a: 'b', c: '' },
      binaryData: { bin: 'AAEC' },
      immutable: true,
    });
  });

  it('knows which kinds it cannot read, and rejects what is not protobuf', () => {
    expect(decodeKubeProtobuf(envelope('v1', 'Node', Buffer.alloc(0)))).toBeUndefined();
    expect(() => decodeKubeProtobuf(Buffer.from('{"kind":"Namespace"}'))).toThrow(ProtobufError);
    expect(() => decodeKubeProtobuf(createNamespaceFoo.subarray(0, 20))).toThrow(ProtobufError);
  });
});
