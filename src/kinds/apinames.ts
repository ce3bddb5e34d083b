// Upstream OpenAPI component names of the hand-written shared schemas in
// meta.ts, so /openapi/v3 refers to them as kube-apiserver does
// (`kubectl explain` prints `<ObjectMeta>`, `<LabelSelector>`, `map[string]Quantity`).
// The generated core/v1 shapes name themselves (src/kinds/generated).
import {
  IntOrString,
  LabelSelector,
  LabelSelectorRequirement,
  ListMeta,
  ManagedFieldsEntry,
  NodeSelector,
  NodeSelectorRequirement,
  NodeSelectorTerm,
  ObjectMeta,
  OwnerReference,
  Quantity,
  Time,
} from './meta.ts';
import { named } from './schema.ts';

const meta = 'io.k8s.apimachinery.pkg.apis.meta.v1';
named(`${meta}.ObjectMeta`, ObjectMeta);
named(`${meta}.ListMeta`, ListMeta);
named(`${meta}.OwnerReference`, OwnerReference);
named(`${meta}.ManagedFieldsEntry`, ManagedFieldsEntry);
named(`${meta}.LabelSelector`, LabelSelector);
named(`${meta}.LabelSelectorRequirement`, LabelSelectorRequirement);
named(`${meta}.Time`, Time);
named('io.k8s.apimachinery.pkg.api.resource.Quantity', Quantity);
named('io.k8s.apimachinery.pkg.util.intstr.IntOrString', IntOrString);
named('io.k8s.api.core.v1.NodeSelector', NodeSelector);
named('io.k8s.api.core.v1.NodeSelectorTerm', NodeSelectorTerm);
named('io.k8s.api.core.v1.NodeSelectorRequirement', NodeSelectorRequirement);
