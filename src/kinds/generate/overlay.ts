// What the generator's source (@kubernetes/client-node, generated from the
// Kubernetes OpenAPI by openapi-generator) leaves out and upstream's OpenAPI
// says: the `resource.Quantity` fields (the client types them as plain
// strings), and the `+enum` value lists (the client strips "Possible enum
// values" from descriptions). Keyed `Type.field` with the client's type names.
// Checked against upstream's published OpenAPI by generate.test.ts.

/** Fields of type resource.Quantity (`map` = map[string]Quantity). */
export const QUANTITY_FIELDS: Record<string, 'scalar' | 'map'> = {
  'V1ResourceRequirements.limits': 'map',
  'V1ResourceRequirements.requests': 'map',
  'V1VolumeResourceRequirements.limits': 'map',
  'V1VolumeResourceRequirements.requests': 'map',
  'V1PodSpec.overhead': 'map',
  'V1PersistentVolumeSpec.capacity': 'map',
  'V1EmptyDirVolumeSource.sizeLimit': 'scalar',
  'V1ResourceFieldSelector.divisor': 'scalar',
  'V1ContainerStatus.allocatedResources': 'map',
};

/** `+enum` types of core/v1, as upstream's OpenAPI lists their values (sorted). */
const pull = ['Always', 'IfNotPresent', 'Never'];
const profile = ['Localhost', 'RuntimeDefault', 'Unconfined'];
const conditionStatus = ['False', 'True', 'Unknown'];
export const ENUMS: Record<string, string[]> = {
  'V1Container.imagePullPolicy': pull,
  'V1Container.terminationMessagePolicy': ['FallbackToLogsOnError', 'File'],
  'V1Container.restartPolicy': ['Always'],
  'V1EphemeralContainer.imagePullPolicy': pull,
  'V1EphemeralContainer.terminationMessagePolicy': ['FallbackToLogsOnError', 'File'],
  'V1EphemeralContainer.restartPolicy': ['Always'],
  'V1ImageVolumeSource.pullPolicy': pull,
  'V1ContainerPort.protocol': ['SCTP', 'TCP', 'UDP'],
  'V1ContainerResizePolicy.restartPolicy': ['NotRequired', 'RestartContainer'],
  'V1HTTPGetAction.scheme': ['HTTP', 'HTTPS'],
  'V1VolumeMount.mountPropagation': ['Bidirectional', 'HostToContainer', 'None'],
  'V1VolumeMount.recursiveReadOnly': ['Disabled', 'Enabled', 'IfPossible'],
  'V1PodSpec.restartPolicy': ['Always', 'Never', 'OnFailure'],
  'V1PodSpec.dnsPolicy': ['ClusterFirst', 'ClusterFirstWithHostNet', 'Default', 'None'],
  'V1PodSpec.preemptionPolicy': ['Never', 'PreemptLowerPriority'],
  'V1Toleration.operator': ['Equal', 'Exists'],
  'V1Toleration.effect': ['NoExecute', 'NoSchedule', 'PreferNoSchedule'],
  'V1TopologySpreadConstraint.whenUnsatisfiable': ['DoNotSchedule', 'ScheduleAnyway'],
  'V1TopologySpreadConstraint.nodeAffinityPolicy': ['Honor', 'Ignore'],
  'V1TopologySpreadConstraint.nodeTaintsPolicy': ['Honor', 'Ignore'],
  'V1HostPathVolumeSource.type': ['', 'BlockDevice', 'CharDevice', 'Directory', 'DirectoryOrCreate', 'File', 'FileOrCreate', 'Socket'],
  'V1SeccompProfile.type': profile,
  'V1AppArmorProfile.type': profile,
  'V1PodSecurityContext.fsGroupChangePolicy': ['Always', 'OnRootMismatch'],
  'V1PodSecurityContext.supplementalGroupsPolicy': ['Merge', 'Strict'],
  'V1SecurityContext.procMount': ['Default', 'Unmasked'],
  'V1PersistentVolumeClaimSpec.volumeMode': ['Block', 'Filesystem'],
  'V1PersistentVolumeClaimSpec.accessModes': ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'],
  'V1PersistentVolumeSpec.volumeMode': ['Block', 'Filesystem'],
  'V1PersistentVolumeSpec.accessModes': ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'],
  'V1PersistentVolumeSpec.persistentVolumeReclaimPolicy': ['Delete', 'Recycle', 'Retain'],
  'V1PodStatus.phase': ['Failed', 'Pending', 'Running', 'Succeeded', 'Unknown'],
  'V1PodStatus.qosClass': ['BestEffort', 'Burstable', 'Guaranteed'],
  'V1PodCondition.status': conditionStatus,
  'V1PodOS.name': ['linux', 'windows'],
};

/** Types kept by hand in src/kinds/meta.ts (shared with other kinds and their validators). */
export const HAND_TYPES: Record<string, string> = {
  V1ObjectMeta: 'ObjectMeta',
  V1LabelSelector: 'LabelSelector',
  V1NodeSelector: 'NodeSelector',
  V1NodeSelectorTerm: 'NodeSelectorTerm',
};

/** The API types the generated file starts from; everything they reach is generated. */
export const ROOTS = ['V1PodTemplateSpec', 'V1PodSpec', 'V1PodStatus', 'V1PersistentVolumeSpec'];
