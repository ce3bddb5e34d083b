// NetworkPolicy (networking.k8s.io/v1, namespaced): which traffic selected pods
// may receive and send. Behaviour follows the upstream networkpolicy strategy and
// ValidateNetworkPolicy (API-SEMANTICS §15.2).
import { z } from 'zod';
import type { KindDefinition } from './kind.ts';
import { STANDARD_VERBS } from './kind.ts';
import { fieldErrors, Path, type FieldError } from '../lib/field.ts';
import { isValidPortName } from '../lib/names.ts';
import { cidrErrors, cidrWarnings, isStrictSubset, parseCIDRSloppy } from '../lib/cidr.ts';
import { formatLabelSelector } from '../lib/labels.ts';
import { age } from '../lib/duration.ts';
import { AgeColumnDescription, metaSchemas, NameColumnDescription, objectSchema, validateLabelSelector, validateObjectMeta } from './meta.ts';
import { once } from './schema.ts';

const str = (description: string, extra: Record<string, unknown> = {}) => z.string().optional().meta({ description, ...extra });

const PROTOCOLS = ['TCP', 'UDP', 'SCTP'];
const POLICY_TYPES = ['Ingress', 'Egress'];

const networkPolicySchemas = once(() => {
  const { IntOrString, LabelSelector } = metaSchemas();
  const NetworkPolicyPort = z.object({
    protocol: str('Protocol the traffic must match; defaults to TCP.', { enum: PROTOCOLS }),
    port: IntOrString.optional().meta({ description: 'Port number or named port; all ports when absent.' }),
    endPort: z.number().int().optional().meta({ description: 'With a numeric port, the last port of the allowed range (inclusive).' }),
  });

  const NetworkPolicyPeer = z.object({
    podSelector: LabelSelector.optional().meta({ description: 'Pods allowed as peers (in the policy namespace, or in namespaceSelector namespaces).' }),
    namespaceSelector: LabelSelector.optional().meta({ description: 'Namespaces whose pods are allowed as peers.' }),
    ipBlock: z
      .object({
        cidr: str('Allowed IP range, e.g. 192.168.1.0/24.'),
        except: z.array(z.string()).optional().meta({ description: 'Ranges inside cidr that are not allowed.' }),
      })
      .optional()
      .meta({ description: 'IP range allowed as peer; may not be combined with the selectors.' }),
  });

  const ports = z.array(NetworkPolicyPort).optional().meta({ description: 'Ports the traffic must match; all ports when empty.' });

  const NetworkPolicySpec = z.object({
    podSelector: LabelSelector.optional().meta({ description: 'Pods this policy applies to; {} selects every pod in the namespace.' }),
    ingress: z
      .array(
        z.object({
          ports,
          from: z.array(NetworkPolicyPeer).optional().meta({ description: 'Sources allowed to connect; everyone when empty.' }),
        }),
      )
      .optional()
      .meta({ description: 'Allowed incoming traffic; the union of the rules.' }),
    egress: z
      .array(
        z.object({
          ports,
          to: z.array(NetworkPolicyPeer).optional().meta({ description: 'Destinations allowed; everyone when empty.' }),
        }),
      )
      .optional()
      .meta({ description: 'Allowed outgoing traffic; the union of the rules.' }),
    policyTypes: z
      .array(z.string().meta({ enum: POLICY_TYPES }))
      .optional()
      .meta({ description: 'Directions the policy restricts: Ingress, Egress or both.' }),
  });

  const NetworkPolicySchema = objectSchema(
    NetworkPolicySpec.describe('Desired behaviour of the policy.'),
    undefined,
    {},
    'NetworkPolicy describes what network traffic is allowed for a set of pods.',
  );
  return { NetworkPolicyPort, NetworkPolicyPeer, ports, NetworkPolicySpec, NetworkPolicySchema };
});

// ---- defaults ---------------------------------------------------------------

function defaults(obj: any) {
  const spec = (obj.spec ??= {});
  spec.podSelector ??= {};
  for (const rule of [...(spec.ingress ?? []), ...(spec.egress ?? [])]) for (const p of rule?.ports ?? []) p.protocol ??= 'TCP';
  if (!spec.policyTypes?.length) spec.policyTypes = spec.egress?.length ? ['Ingress', 'Egress'] : ['Ingress'];
}

// ---- validation -------------------------------------------------------------

const portRangeErrors = (n: number) => (n >= 1 && n <= 65535 ? [] : ['must be between 1 and 65535, inclusive']);

function validatePort(port: any, p: Path): FieldError[] {
  const errs: FieldError[] = [];
  if (port.protocol !== undefined && !PROTOCOLS.includes(port.protocol)) errs.push(fieldErrors.notSupported(p.child('protocol'), port.protocol, PROTOCOLS));
  const endPort: number | undefined = port.endPort;
  if (port.port === undefined) {
    if (endPort !== undefined) errs.push(fieldErrors.invalid(p.child('endPort'), endPort, 'may not be specified when `port` is not specified'));
  } else if (typeof port.port === 'number') {
    portRangeErrors(port.port).forEach((m) => errs.push(fieldErrors.invalid(p.child('port'), port.port, m)));
    if (endPort !== undefined) {
      // Upstream quirk (API-SEMANTICS §15.2): the value shown is `port`, not `endPort`.
      if (endPort < port.port) errs.push(fieldErrors.invalid(p.child('endPort'), port.port, 'must be greater than or equal to `port`'));
      if (endPort > 65535) errs.push(fieldErrors.invalid(p.child('endPort'), endPort, 'must be less than or equal to 65535'));
      else portRangeErrors(endPort).forEach((m) => errs.push(fieldErrors.invalid(p.child('endPort'), endPort, m)));
    }
  } else {
    if (endPort !== undefined) errs.push(fieldErrors.invalid(p.child('endPort'), endPort, 'may not be specified when `port` is non-numeric'));
    isValidPortName(port.port).forEach((m) => errs.push(fieldErrors.invalid(p.child('port'), port.port, m)));
  }
  return errs;
}

/** IsValidCIDRForLegacyField (StrictIPCIDRValidation off): only unparseable values fail; non-standard forms get warnings. */
function legacyCIDRErrors(value: string, p: Path, exempt: Set<string>): FieldError[] {
  return exempt.has(value) ? [] : cidrErrors(value).map((m) => fieldErrors.invalid(p, value, m));
}

function validateIPBlock(ipb: any, p: Path, exempt: Set<string>): FieldError[] {
  if (!ipb.cidr) return [fieldErrors.required(p.child('cidr'))];
  const errs = legacyCIDRErrors(ipb.cidr, p.child('cidr'), exempt);
  const cidr = parseCIDRSloppy(ipb.cidr);
  if (!cidr) return errs;
  (ipb.except ?? []).forEach((ex: string, i: number) => {
    const ep = p.child('except').index(i);
    errs.push(...legacyCIDRErrors(ex, ep, exempt));
    const except = parseCIDRSloppy(ex);
    if (except && !isStrictSubset(except, cidr)) errs.push(fieldErrors.invalid(ep, ex, 'must be a strict subset of `cidr`'));
  });
  return errs;
}

function validatePeer(peer: any, p: Path, exempt: Set<string>): FieldError[] {
  const errs: FieldError[] = [];
  let n = 0;
  if (peer.podSelector) {
    n++;
    errs.push(...validateLabelSelector(peer.podSelector, p.child('podSelector')));
  }
  if (peer.namespaceSelector) {
    n++;
    errs.push(...validateLabelSelector(peer.namespaceSelector, p.child('namespaceSelector')));
  }
  if (peer.ipBlock) {
    n++;
    errs.push(...validateIPBlock(peer.ipBlock, p.child('ipBlock'), exempt));
  }
  if (n === 0) errs.push(fieldErrors.required(p, 'must specify a peer'));
  else if (n > 1 && peer.ipBlock) errs.push(fieldErrors.forbidden(p, 'may not specify both ipBlock and another peer'));
  return errs;
}

/** Every ipBlock CIDR in a policy: values already stored stay valid on update. */
function policyCIDRs(spec: any): string[] {
  const peers = [...(spec?.ingress ?? []).flatMap((r: any) => r?.from ?? []), ...(spec?.egress ?? []).flatMap((r: any) => r?.to ?? [])];
  return peers.flatMap((peer: any) => (peer?.ipBlock ? [peer.ipBlock.cidr, ...(peer.ipBlock.except ?? [])] : []));
}

function validateSpec(spec: any, exempt: Set<string>): FieldError[] {
  const s = new Path(['spec']);
  const errs = validateLabelSelector(spec?.podSelector ?? {}, s.child('podSelector'));
  for (const [dir, peersKey] of [
    ['ingress', 'from'],
    ['egress', 'to'],
  ] as const) {
    (spec?.[dir] ?? []).forEach((rule: any, i: number) => {
      const rp = s.child(dir).index(i);
      (rule?.ports ?? []).forEach((port: any, j: number) => errs.push(...validatePort(port, rp.child('ports').index(j))));
      (rule?.[peersKey] ?? []).forEach((peer: any, j: number) => errs.push(...validatePeer(peer, rp.child(peersKey).index(j), exempt)));
    });
  }
  const types: string[] = spec?.policyTypes ?? [];
  if (types.length > POLICY_TYPES.length) {
    errs.push(fieldErrors.tooMany(s.child('policyTypes'), types.length, POLICY_TYPES.length));
    return errs;
  }
  types.forEach((t, i) => {
    if (!POLICY_TYPES.includes(t)) errs.push(fieldErrors.notSupported(s.child('policyTypes').index(i), t, POLICY_TYPES));
  });
  return errs;
}

function validate(obj: any, ctx: { old?: any }): FieldError[] {
  const meta = validateObjectMeta(obj.metadata, { namespaced: true, nameFn: 'subdomain', old: ctx.old?.metadata });
  return [...meta, ...validateSpec(obj.spec, new Set(ctx.old ? policyCIDRs(ctx.old.spec) : []))];
}

function warnings(obj: any): string[] {
  const out: string[] = [];
  const s = new Path(['spec']);
  for (const [dir, peersKey] of [
    ['ingress', 'from'],
    ['egress', 'to'],
  ] as const) {
    (obj.spec?.[dir] ?? []).forEach((rule: any, i: number) =>
      (rule?.[peersKey] ?? []).forEach((peer: any, j: number) => {
        const ipb = peer?.ipBlock;
        if (!ipb?.cidr) return;
        const p = s.child(dir).index(i).child(peersKey).index(j).child('ipBlock');
        const warn = (value: string, at: Path) => {
          out.push(...cidrWarnings(value).map((w) => `${at}: ${w}`));
        };
        warn(ipb.cidr, p.child('cidr'));
        (ipb.except ?? []).forEach((ex: string, k: number) => warn(ex, p.child('except').index(k)));
      }),
    );
  }
  return out;
}

export const networkPolicyKind: KindDefinition = {
  group: 'networking.k8s.io',
  version: 'v1',
  kind: 'NetworkPolicy',
  listKind: 'NetworkPolicyList',
  plural: 'networkpolicies',
  singular: 'networkpolicy',
  shortNames: ['netpol'],
  categories: [],
  scope: 'Namespaced',
  description: 'NetworkPolicy describes what network traffic is allowed for a set of pods.',
  get schema() {
    return networkPolicySchemas().NetworkPolicySchema;
  },
  subresources: {},
  verbs: STANDARD_VERBS,
  defaults,
  validate,
  strategy: {
    mainResetsFields: [],
    statusResetsFields: [],
    statusResetsMetadata: [],
    statusOnCreate: 'keep',
    generation: true,
    allowUnconditionalUpdate: true,
    returnDeletedObject: false,
    warnings,
  },
  printerColumns: [
    { name: 'Name', type: 'string', format: 'name', description: NameColumnDescription, priority: 0, cell: (o) => o.metadata?.name ?? '' },
    { name: 'Pod-Selector', type: 'string', description: 'Pods this policy applies to.', priority: 0, cell: (o) => formatLabelSelector(o.spec?.podSelector ?? {}) },
    { name: 'Age', type: 'string', description: AgeColumnDescription, priority: 0, cell: (o, now) => age(o.metadata?.creationTimestamp, now) },
  ],
  fieldSelector: {
    fields: {
      'metadata.name': (o) => o.metadata?.name ?? '',
      'metadata.namespace': (o) => o.metadata?.namespace ?? '',
    },
    unsupported: 'known-fields',
  },
};
