// Request bodies in Kubernetes' protobuf encoding (application/vnd.kubernetes.protobuf).
// client-go's generated typed clients prefer protobuf for built-in kinds, and
// kubectl's `create namespace` / `create configmap` send it with no JSON
// fallback, so the server must read it. Responses stay JSON: clients list JSON
// in Accept after protobuf and decode by the response's Content-Type.
//
// The envelope (AM/pkg/runtime/serializer/protobuf/protobuf.go) is the magic
// "k8s\0" followed by a runtime.Unknown message {typeMeta, raw, contentEncoding,
// contentType}; `raw` is the object in the proto2 messages of
// API/core/v1/generated.proto and AM/pkg/apis/meta/v1/generated.proto. Only the
// messages of the kinds clients create through typed clients are described
// here; other kinds answer 415 for protobuf as before.

export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';

const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

export class ProtobufError extends Error {}

type Scalar = 'string' | 'bytes' | 'int64' | 'int32' | 'bool';

interface Field {
  name: string;
  type: Scalar | Message | MapOf;
  repeated?: boolean;
  /** Keep zero values (Go pointer fields); others are `omitempty`. */
  keepZero?: boolean;
}

interface Message {
  fields: Record<number, Field>;
  /** Converts the decoded message (e.g. metav1.Time to RFC 3339). */
  convert?: (m: Record<string, unknown>) => unknown;
}

interface MapOf {
  map: Scalar;
}

const isMessage = (t: Field['type']): t is Message => typeof t === 'object' && 'fields' in t;
const isMap = (t: Field['type']): t is MapOf => typeof t === 'object' && 'map' in t;

const time: Message = {
  fields: { 1: { name: 'seconds', type: 'int64' }, 2: { name: 'nanos', type: 'int32' } },
  convert: (m) => (m.seconds ? new Date(Number(m.seconds) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z') : undefined),
};

const ownerReference: Message = {
  fields: {
    1: { name: 'kind', type: 'string' },
    3: { name: 'name', type: 'string' },
    4: { name: 'uid', type: 'string' },
    5: { name: 'apiVersion', type: 'string' },
    6: { name: 'controller', type: 'bool', keepZero: true },
    7: { name: 'blockOwnerDeletion', type: 'bool', keepZero: true },
  },
};

const objectMeta: Message = {
  fields: {
    1: { name: 'name', type: 'string' },
    2: { name: 'generateName', type: 'string' },
    3: { name: 'namespace', type: 'string' },
    5: { name: 'uid', type: 'string' },
    6: { name: 'resourceVersion', type: 'string' },
    7: { name: 'generation', type: 'int64' },
    8: { name: 'creationTimestamp', type: time },
    9: { name: 'deletionTimestamp', type: time },
    10: { name: 'deletionGracePeriodSeconds', type: 'int64', keepZero: true },
    11: { name: 'labels', type: { map: 'string' } },
    12: { name: 'annotations', type: { map: 'string' } },
    13: { name: 'ownerReferences', type: ownerReference, repeated: true },
    14: { name: 'finalizers', type: 'string', repeated: true },
  },
};

const selectorAttributes: Message = {
  fields: {
    1: { name: 'rawSelector', type: 'string' },
    2: {
      name: 'requirements',
      repeated: true,
      type: { fields: { 1: { name: 'key', type: 'string' }, 2: { name: 'operator', type: 'string' }, 3: { name: 'values', type: 'string', repeated: true } } },
    },
  },
};

/** authorization.k8s.io/v1 ResourceAttributes and NonResourceAttributes (API/authorization/v1/generated.proto). */
const resourceAttributes: Message = {
  fields: {
    1: { name: 'namespace', type: 'string' },
    2: { name: 'verb', type: 'string' },
    3: { name: 'group', type: 'string' },
    4: { name: 'version', type: 'string' },
    5: { name: 'resource', type: 'string' },
    6: { name: 'subresource', type: 'string' },
    7: { name: 'name', type: 'string' },
    8: { name: 'fieldSelector', type: selectorAttributes },
    9: { name: 'labelSelector', type: selectorAttributes },
  },
};
const nonResourceAttributes: Message = { fields: { 1: { name: 'path', type: 'string' }, 2: { name: 'verb', type: 'string' } } };

/** rbac.authorization.k8s.io/v1 (API/rbac/v1/generated.proto): `kubectl create role|clusterrole|rolebinding|clusterrolebinding`. */
const policyRule: Message = {
  fields: {
    1: { name: 'verbs', type: 'string', repeated: true },
    2: { name: 'apiGroups', type: 'string', repeated: true },
    3: { name: 'resources', type: 'string', repeated: true },
    4: { name: 'resourceNames', type: 'string', repeated: true },
    5: { name: 'nonResourceURLs', type: 'string', repeated: true },
  },
};
const labelSelector: Message = {
  fields: {
    1: { name: 'matchLabels', type: { map: 'string' } },
    2: {
      name: 'matchExpressions',
      repeated: true,
      type: { fields: { 1: { name: 'key', type: 'string' }, 2: { name: 'operator', type: 'string' }, 3: { name: 'values', type: 'string', repeated: true } } },
    },
  },
};
const roleBinding: Message = {
  fields: {
    1: { name: 'metadata', type: objectMeta },
    2: {
      name: 'subjects',
      repeated: true,
      type: { fields: { 1: { name: 'kind', type: 'string' }, 2: { name: 'apiGroup', type: 'string' }, 3: { name: 'name', type: 'string' }, 4: { name: 'namespace', type: 'string' } } },
    },
    3: { name: 'roleRef', type: { fields: { 1: { name: 'apiGroup', type: 'string' }, 2: { name: 'kind', type: 'string' }, 3: { name: 'name', type: 'string' } } } },
  },
};

/** Messages by `apiVersion/kind`. */
const KINDS: Record<string, Message> = {
  'rbac.authorization.k8s.io/v1/Role': { fields: { 1: { name: 'metadata', type: objectMeta }, 2: { name: 'rules', type: policyRule, repeated: true } } },
  'rbac.authorization.k8s.io/v1/ClusterRole': {
    fields: {
      1: { name: 'metadata', type: objectMeta },
      2: { name: 'rules', type: policyRule, repeated: true },
      3: { name: 'aggregationRule', type: { fields: { 1: { name: 'clusterRoleSelectors', type: labelSelector, repeated: true } } } },
    },
  },
  'rbac.authorization.k8s.io/v1/RoleBinding': roleBinding,
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': roleBinding,
  // kubectl auth whoami.
  'authentication.k8s.io/v1/SelfSubjectReview': { fields: { 1: { name: 'metadata', type: objectMeta } } },
  'authorization.k8s.io/v1/SubjectAccessReview': {
    fields: {
      1: { name: 'metadata', type: objectMeta },
      2: {
        name: 'spec',
        type: {
          fields: {
            1: { name: 'resourceAttributes', type: resourceAttributes },
            2: { name: 'nonResourceAttributes', type: nonResourceAttributes },
            3: { name: 'user', type: 'string' },
            4: { name: 'groups', type: 'string', repeated: true },
            6: { name: 'uid', type: 'string' },
          },
        },
      },
    },
  },
  'v1/Namespace': {
    fields: {
      1: { name: 'metadata', type: objectMeta },
      2: { name: 'spec', type: { fields: { 1: { name: 'finalizers', type: 'string', repeated: true } } } },
      3: { name: 'status', type: { fields: { 1: { name: 'phase', type: 'string' } } } },
    },
  },
  'v1/ConfigMap': {
    fields: {
      1: { name: 'metadata', type: objectMeta },
      2: { name: 'data', type: { map: 'string' } },
      3: { name: 'binaryData', type: { map: 'bytes' } },
      4: { name: 'immutable', type: 'bool', keepZero: true },
    },
  },
  // kubectl auth can-i (the typed authorization client speaks protobuf).
  'authorization.k8s.io/v1/SelfSubjectAccessReview': {
    fields: {
      1: { name: 'metadata', type: objectMeta },
      2: {
        name: 'spec',
        type: { fields: { 1: { name: 'resourceAttributes', type: resourceAttributes }, 2: { name: 'nonResourceAttributes', type: nonResourceAttributes } } },
      },
    },
  },
  'authorization.k8s.io/v1/SelfSubjectRulesReview': {
    fields: {
      1: { name: 'metadata', type: objectMeta },
      2: { name: 'spec', type: { fields: { 1: { name: 'namespace', type: 'string' } } } },
    },
  },
};

const unknownEnvelope: Message = {
  fields: {
    1: { name: 'typeMeta', type: { fields: { 1: { name: 'apiVersion', type: 'string' }, 2: { name: 'kind', type: 'string' } } } },
    2: { name: 'raw', type: 'bytes' },
    3: { name: 'contentEncoding', type: 'string' },
    4: { name: 'contentType', type: 'string' },
  },
};

class Reader {
  pos = 0;
  constructor(readonly buf: Buffer) {}
  get done() {
    return this.pos >= this.buf.length;
  }
  varint(): bigint {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (this.pos >= this.buf.length) throw new ProtobufError('unexpected end of data');
      const b = this.buf[this.pos++];
      result |= BigInt(b & 0x7f) << shift;
      if (!(b & 0x80)) return result;
      shift += 7n;
      if (shift > 63n) throw new ProtobufError('varint overflow');
    }
  }
  bytes(): Buffer {
    const n = Number(this.varint());
    if (this.pos + n > this.buf.length) throw new ProtobufError('unexpected end of data');
    const b = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return b;
  }
  skip(wire: number) {
    if (wire === 0) this.varint();
    else if (wire === 1) this.pos += 8;
    else if (wire === 2) this.bytes();
    else if (wire === 5) this.pos += 4;
    else throw new ProtobufError(`unsupported wire type ${wire}`);
  }
}

function scalar(type: Scalar, r: Reader, wire: number): unknown {
  if (type === 'string' || type === 'bytes') {
    if (wire !== 2) throw new ProtobufError('wrong wire type for a length-delimited field');
    const b = r.bytes();
    return type === 'string' ? b.toString('utf8') : b.toString('base64');
  }
  if (wire !== 0) throw new ProtobufError('wrong wire type for a varint field');
  const v = r.varint();
  if (type === 'bool') return v !== 0n;
  return Number(BigInt.asIntN(type === 'int64' ? 64 : 32, v));
}

const isZero = (v: unknown) => v === '' || v === 0 || v === false || v === undefined;

function decodeMessage(msg: Message, buf: Buffer): unknown {
  const r = new Reader(buf);
  const out: Record<string, unknown> = {};
  while (!r.done) {
    const tag = Number(r.varint());
    const num = tag >>> 3;
    const wire = tag & 7;
    const f = msg.fields[num];
    if (!f) {
      r.skip(wire);
      continue;
    }
    let value: unknown;
    if (isMessage(f.type)) {
      if (wire !== 2) throw new ProtobufError(`wrong wire type for ${f.name}`);
      value = decodeMessage(f.type, r.bytes());
    } else if (isMap(f.type)) {
      if (wire !== 2) throw new ProtobufError(`wrong wire type for ${f.name}`);
      const entry = decodeMessage({ fields: { 1: { name: 'k', type: 'string', keepZero: true }, 2: { name: 'v', type: f.type.map, keepZero: true } } }, r.bytes()) as { k?: string; v?: unknown };
      const m = (out[f.name] ??= {}) as Record<string, unknown>;
      // Defined, not assigned: a key named `__proto__` is data.
      Object.defineProperty(m, entry.k ?? '', { value: entry.v ?? (f.type.map === 'string' || f.type.map === 'bytes' ? '' : 0), writable: true, enumerable: true, configurable: true });
      continue;
    } else {
      value = scalar(f.type, r, wire);
    }
    if (f.repeated) {
      ((out[f.name] ??= []) as unknown[]).push(value);
      continue;
    }
    if (value === undefined || (!f.keepZero && isZero(value))) {
      delete out[f.name];
      continue;
    }
    out[f.name] = value;
  }
  return msg.convert ? msg.convert(out) : out;
}

/**
 * The JSON form of a protobuf-encoded object, or undefined when the kind has
 * no message description here. Throws ProtobufError for malformed data.
 */
export function decodeKubeProtobuf(body: Buffer): Record<string, unknown> | undefined {
  if (body.length < MAGIC.length || !body.subarray(0, MAGIC.length).equals(MAGIC)) {
    throw new ProtobufError('provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]');
  }
  const unknown = decodeMessage(unknownEnvelope, body.subarray(MAGIC.length)) as {
    typeMeta?: { apiVersion?: string; kind?: string };
    raw?: string;
    contentEncoding?: string;
  };
  const apiVersion = unknown.typeMeta?.apiVersion ?? '';
  const kind = unknown.typeMeta?.kind ?? '';
  if (unknown.contentEncoding) throw new ProtobufError(`unsupported content encoding ${unknown.contentEncoding}`);
  const msg = KINDS[`${apiVersion}/${kind}`];
  if (!msg) return undefined;
  const obj = decodeMessage(msg, Buffer.from(unknown.raw ?? '', 'base64')) as Record<string, unknown>;
  return { kind, apiVersion, ...obj };
}
