// /openapi/v2 in the protobuf form kubectl asks for
// (`application/com.github.proto-openapi.spec.v2@v1.0+protobuf`): the Swagger
// document as gnostic's openapi.v2.Document (gnostic openapiv2/OpenAPIv2.proto),
// which kube-apiserver produces with openapi_v2.ParseDocument + proto.Marshal.
// client-go's OpenAPISchema() proto.Unmarshals the body with no JSON fallback.
//
// Only the messages a Swagger document of ours uses are described. JSON values
// gnostic keeps as `Any` (vendor extensions, enum values) carry their text in
// Any.yaml; JSON text is YAML, and readers yaml.Unmarshal it.

type Scalar = 'string' | 'bool' | 'double' | 'int64' | 'any';
type Encoder = (value: unknown) => Buffer;
interface Field {
  no: number;
  type: Scalar | Encoder;
  repeated?: boolean;
}

function varint(n: number | bigint): Buffer {
  let v = BigInt.asUintN(64, BigInt(n));
  const out: number[] = [];
  while (v > 0x7fn) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
  return Buffer.from(out);
}

const key = (no: number, wire: number) => varint((no << 3) | wire);
const lengthDelimited = (no: number, payload: Buffer) => Buffer.concat([key(no, 2), varint(payload.length), payload]);
const stringField = (no: number, s: string) => lengthDelimited(no, Buffer.from(s, 'utf8'));

/** openapi.v2.Any: the value's text in `yaml` (field 2). */
const anyMessage: Encoder = (v) => stringField(2, JSON.stringify(v));

/** One field; proto3 leaves zero scalars out unless they are a oneof's choice. */
function encodeField(f: Field, value: unknown, keepZero = false): Buffer[] {
  if (value === undefined || value === null) return [];
  if (f.repeated) return (Array.isArray(value) ? value : [value]).flatMap((v) => encodeField({ ...f, repeated: false }, v, true));
  switch (f.type) {
    case 'string':
      return value === '' && !keepZero ? [] : [stringField(f.no, String(value))];
    case 'bool':
      return !value && !keepZero ? [] : [Buffer.concat([key(f.no, 0), varint(value ? 1 : 0)])];
    case 'int64':
      return !value && !keepZero ? [] : [Buffer.concat([key(f.no, 0), varint(Math.trunc(Number(value)))])];
    case 'double': {
      if (!value && !keepZero) return [];
      const b = Buffer.alloc(8);
      b.writeDoubleLE(Number(value));
      return [Buffer.concat([key(f.no, 1), b])];
    }
    case 'any':
      return [lengthDelimited(f.no, anyMessage(value))];
    default:
      return [lengthDelimited(f.no, f.type(value))];
  }
}

/** A message whose JSON keys map to fields; `x-` keys go to the vendor_extension field `ext`. */
function message(fields: Record<string, Field>, ext?: number): Encoder {
  return (value) => {
    const obj = value as Record<string, unknown>;
    const parts: Buffer[] = [];
    for (const [k, v] of Object.entries(obj)) {
      const f = fields[k];
      if (f) parts.push(...encodeField(f, v));
      else if (ext && k.startsWith('x-')) parts.push(lengthDelimited(ext, namedEntry(k, anyMessage(v))));
    }
    return Buffer.concat(parts);
  };
}

const namedEntry = (name: string, value: Buffer) => Buffer.concat([stringField(1, name), lengthDelimited(2, value)]);

/** gnostic's ordered maps: a JSON object as repeated Named* {name = 1, value = 2} at field `no`. */
function namedMap(no: number, value: Encoder, ext?: number): Encoder {
  return (v) => {
    const parts: Buffer[] = [];
    for (const [k, item] of Object.entries(v as Record<string, unknown>)) {
      if (ext && k.startsWith('x-')) parts.push(lengthDelimited(ext, namedEntry(k, anyMessage(item))));
      else parts.push(lengthDelimited(no, namedEntry(k, value(item))));
    }
    return Buffer.concat(parts);
  };
}

/** A oneof wrapper message: the one field `choose` picks for the value. */
const oneof = (choose: (v: unknown) => Field): Encoder => (v) => Buffer.concat(encodeField(choose(v), v, true));

const s = (no: number, repeated = false): Field => ({ no, type: 'string', repeated });
const b = (no: number): Field => ({ no, type: 'bool' });
const d = (no: number): Field => ({ no, type: 'double' });
const i = (no: number): Field => ({ no, type: 'int64' });
const m = (no: number, type: Encoder, repeated = false): Field => ({ no, type, repeated });
const any = (no: number, repeated = false): Field => ({ no, type: 'any', repeated });

const externalDocs = message({ description: s(1), url: s(2) }, 3);

// Schema refers to itself; the encoder is looked up when called.
const schemaRef: Encoder = (v) => schema(v);
const typeItem: Encoder = (v) => Buffer.concat(encodeField(s(1, true), v));
const itemsItem: Encoder = (v) => Buffer.concat(encodeField(m(1, schemaRef, true), v));
const additionalPropertiesItem = oneof((v) => (typeof v === 'boolean' ? b(2) : m(1, schemaRef)));
const schema: Encoder = message(
  {
    $ref: s(1), format: s(2), title: s(3), description: s(4), default: any(5), multipleOf: d(6), maximum: d(7), exclusiveMaximum: b(8),
    minimum: d(9), exclusiveMinimum: b(10), maxLength: i(11), minLength: i(12), pattern: s(13), maxItems: i(14), minItems: i(15),
    uniqueItems: b(16), maxProperties: i(17), minProperties: i(18), required: s(19, true), enum: any(20, true),
    additionalProperties: m(21, additionalPropertiesItem), type: m(22, typeItem), items: m(23, itemsItem), allOf: m(24, schemaRef, true),
    properties: m(25, namedMap(1, schemaRef)), discriminator: s(26), readOnly: b(27), externalDocs: m(29, externalDocs), example: any(30),
  },
  31,
);

const primitivesItems: Encoder = (v) => primitives(v);
const primitives: Encoder = message(
  { type: s(1), format: s(2), items: m(3, primitivesItems), collectionFormat: s(4), default: any(5), uniqueItems: b(15), enum: any(16, true) },
  18,
);

// The non-body parameter kinds share their fields, numbered from where `allowEmptyValue` is (query, formData) or is not (path, header).
function nonBodyParameter(withEmpty: boolean): Encoder {
  const o = withEmpty ? 1 : 0;
  return message(
    {
      required: b(1), in: s(2), description: s(3), name: s(4), ...(withEmpty ? { allowEmptyValue: b(5) } : {}),
      type: s(5 + o), format: s(6 + o), items: m(7 + o, primitivesItems), collectionFormat: s(8 + o), default: any(9 + o),
      maximum: d(10 + o), exclusiveMaximum: b(11 + o), minimum: d(12 + o), exclusiveMinimum: b(13 + o), maxLength: i(14 + o),
      minLength: i(15 + o), pattern: s(16 + o), maxItems: i(17 + o), minItems: i(18 + o), uniqueItems: b(19 + o), enum: any(20 + o, true),
      multipleOf: d(21 + o),
    },
    22 + o,
  );
}
const NON_BODY: Record<string, number> = { header: 1, formData: 2, query: 3, path: 4 };
const nonBody = oneof((v) => {
  const where = (v as { in: string }).in;
  return m(NON_BODY[where] ?? 3, nonBodyParameter(where === 'query' || where === 'formData'));
});
const bodyParameter = message({ description: s(1), name: s(2), in: s(3), required: b(4), schema: m(5, schema) }, 6);
const parameter = oneof((v) => ((v as { in: string }).in === 'body' ? m(1, bodyParameter) : m(2, nonBody)));
const jsonReference = message({ $ref: s(1), description: s(2) });
const parametersItem = oneof((v) => ('$ref' in (v as object) ? m(2, jsonReference) : m(1, parameter)));

const response = message({ description: s(1), schema: m(2, oneof(() => m(1, schema))) }, 5);
const responseValue = oneof((v) => ('$ref' in (v as object) ? m(2, jsonReference) : m(1, response)));
const operation = message(
  {
    tags: s(1, true), summary: s(2), description: s(3), externalDocs: m(4, externalDocs), operationId: s(5), produces: s(6, true),
    consumes: s(7, true), parameters: m(8, parametersItem, true), responses: m(9, namedMap(1, responseValue, 2)), schemes: s(10, true),
    deprecated: b(11),
  },
  13,
);
const pathItem = message(
  { $ref: s(1), get: m(2, operation), put: m(3, operation), post: m(4, operation), delete: m(5, operation), options: m(6, operation),
    head: m(7, operation), patch: m(8, operation), parameters: m(9, parametersItem, true) },
  10,
);

const apiKeySecurity = message({ type: s(1), name: s(2), in: s(3), description: s(4) }, 5);
const basicSecurity = message({ type: s(1), description: s(2) }, 3);
const securityDefinitionsItem = oneof((v) => ((v as { type: string }).type === 'basic' ? m(1, basicSecurity) : m(2, apiKeySecurity)));
const stringArray: Encoder = (v) => Buffer.concat(encodeField(s(1, true), v));
const securityRequirement = namedMap(1, stringArray);
const info = message({ title: s(1), version: s(2), description: s(3), termsOfService: s(4) }, 7);
const tag = message({ name: s(1), description: s(2), externalDocs: m(3, externalDocs) }, 4);

const document = message(
  {
    swagger: s(1), info: m(2, info), host: s(3), basePath: s(4), schemes: s(5, true), consumes: s(6, true), produces: s(7, true),
    paths: m(8, namedMap(2, pathItem, 1)), definitions: m(9, namedMap(1, schema)), security: m(12, securityRequirement, true),
    securityDefinitions: m(13, namedMap(1, securityDefinitionsItem)), tags: m(14, tag, true), externalDocs: m(15, externalDocs),
  },
  16,
);

/** The Swagger 2.0 document as gnostic's openapi.v2.Document in protobuf. */
export function encodeSwaggerProto(swagger: unknown): Buffer {
  return document(swagger);
}
