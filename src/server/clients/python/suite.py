"""The official Python client (Debian's python3-kubernetes) against the server.

Usage: suite.py KUBECONFIG [SECTION...]

Each section exercises one part of the API as a Python user would, through the
client's typed API classes, and every answer goes through the client's own
deserialisation into its models (which raises on a missing required field).
Prints one JSON line per section: {"section", "ok", "error"}; the vitest file
(src/server/clients/python.test.ts) asserts on them.
"""

import json
import sys
import traceback

from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException

NS = "py-suite"
LABELS = {"suite": "python"}

api_client = None
core = apps = networking = storage = None


def meta(name, namespace=None, labels=None):
    return client.V1ObjectMeta(name=name, namespace=namespace, labels=dict(labels or LABELS))


def check(cond, message):
    if not cond:
        raise AssertionError(message)


def expect_type(obj, cls):
    check(isinstance(obj, cls), "expected %s, got %r" % (cls.__name__, type(obj)))
    return obj


def pod_template(app):
    return client.V1PodTemplateSpec(
        metadata=client.V1ObjectMeta(labels={"app": app}),
        spec=client.V1PodSpec(containers=[client.V1Container(name="main", image="registry.k8s.io/pause:3.9")]),
    )


def kinds():
    """Every kind: how to make one, and the typed calls that create, read, list, replace, patch and delete it."""
    return [
        dict(
            name="Node", cls=client.V1Node, list_cls=client.V1NodeList, namespaced=False,
            body=lambda n: client.V1Node(metadata=meta(n), spec=client.V1NodeSpec(unschedulable=False)),
            create=core.create_node, read=core.read_node, list=core.list_node, replace=core.replace_node,
            patch=core.patch_node, delete=core.delete_node,
            read_status=core.read_node_status, replace_status=core.replace_node_status, patch_status=core.patch_node_status,
            status=lambda o: setattr(o, "status", client.V1NodeStatus(conditions=[client.V1NodeCondition(
                type="Ready", status="True", reason="KubeletReady", message="ready")])),
            status_check=lambda o: o.status.conditions[0].reason == "KubeletReady",
        ),
        dict(
            name="Namespace", cls=client.V1Namespace, list_cls=client.V1NamespaceList, namespaced=False,
            body=lambda n: client.V1Namespace(metadata=meta(n)),
            create=core.create_namespace, read=core.read_namespace, list=core.list_namespace, replace=core.replace_namespace,
            patch=core.patch_namespace, delete=core.delete_namespace,
            read_status=core.read_namespace_status, replace_status=core.replace_namespace_status,
            patch_status=core.patch_namespace_status,
            status=lambda o: setattr(o, "status", client.V1NamespaceStatus(phase="Active", conditions=[
                client.V1NamespaceCondition(type="NamespaceDeletionDiscoveryFailure", status="False", reason="ResourcesDiscovered")])),
            status_check=lambda o: o.status.conditions[0].reason == "ResourcesDiscovered",
        ),
        dict(
            name="Pod", cls=client.V1Pod, list_cls=client.V1PodList, namespaced=True,
            body=lambda n: client.V1Pod(metadata=meta(n), spec=pod_template(n).spec),
            create=core.create_namespaced_pod, read=core.read_namespaced_pod, list=core.list_namespaced_pod,
            replace=core.replace_namespaced_pod, patch=core.patch_namespaced_pod, delete=core.delete_namespaced_pod,
            read_status=core.read_namespaced_pod_status, replace_status=core.replace_namespaced_pod_status,
            patch_status=core.patch_namespaced_pod_status,
            status=lambda o: setattr(o.status, "conditions", [client.V1PodCondition(type="PodScheduled", status="False", reason="Unschedulable")]),
            status_check=lambda o: any(c.reason == "Unschedulable" for c in o.status.conditions or []),
        ),
        dict(
            name="ConfigMap", cls=client.V1ConfigMap, list_cls=client.V1ConfigMapList, namespaced=True,
            body=lambda n: client.V1ConfigMap(metadata=meta(n), data={"a": "1"}),
            create=core.create_namespaced_config_map, read=core.read_namespaced_config_map,
            list=core.list_namespaced_config_map, replace=core.replace_namespaced_config_map,
            patch=core.patch_namespaced_config_map, delete=core.delete_namespaced_config_map,
        ),
        dict(
            name="NetworkPolicy", cls=client.V1NetworkPolicy, list_cls=client.V1NetworkPolicyList, namespaced=True,
            body=lambda n: client.V1NetworkPolicy(metadata=meta(n), spec=client.V1NetworkPolicySpec(
                pod_selector=client.V1LabelSelector(match_labels={"app": "db"}), policy_types=["Ingress"],
                ingress=[client.V1NetworkPolicyIngressRule(_from=[client.V1NetworkPolicyPeer(
                    pod_selector=client.V1LabelSelector(match_labels={"app": "web"}))],
                    ports=[client.V1NetworkPolicyPort(protocol="TCP", port=5432)])])),
            create=networking.create_namespaced_network_policy, read=networking.read_namespaced_network_policy,
            list=networking.list_namespaced_network_policy, replace=networking.replace_namespaced_network_policy,
            patch=networking.patch_namespaced_network_policy, delete=networking.delete_namespaced_network_policy,
        ),
        dict(
            name="DaemonSet", cls=client.V1DaemonSet, list_cls=client.V1DaemonSetList, namespaced=True,
            body=lambda n: client.V1DaemonSet(metadata=meta(n), spec=client.V1DaemonSetSpec(
                selector=client.V1LabelSelector(match_labels={"app": n}), template=pod_template(n))),
            create=apps.create_namespaced_daemon_set, read=apps.read_namespaced_daemon_set,
            list=apps.list_namespaced_daemon_set, replace=apps.replace_namespaced_daemon_set,
            patch=apps.patch_namespaced_daemon_set, delete=apps.delete_namespaced_daemon_set,
            read_status=apps.read_namespaced_daemon_set_status, replace_status=apps.replace_namespaced_daemon_set_status,
            patch_status=apps.patch_namespaced_daemon_set_status,
            status=lambda o: setattr(o, "status", client.V1DaemonSetStatus(
                current_number_scheduled=0, desired_number_scheduled=0, number_misscheduled=0, number_ready=0,
                conditions=[client.V1DaemonSetCondition(type="Progressing", status="True", reason="PythonSuite")])),
            status_check=lambda o: o.status.conditions[0].reason == "PythonSuite",
        ),
        dict(
            name="ControllerRevision", cls=client.V1ControllerRevision, list_cls=client.V1ControllerRevisionList,
            namespaced=True,
            body=lambda n: client.V1ControllerRevision(metadata=meta(n), revision=1, data={"spec": {"template": {}}}),
            create=apps.create_namespaced_controller_revision, read=apps.read_namespaced_controller_revision,
            list=apps.list_namespaced_controller_revision, replace=apps.replace_namespaced_controller_revision,
            patch=apps.patch_namespaced_controller_revision, delete=apps.delete_namespaced_controller_revision,
        ),
        dict(
            name="VolumeAttachment", cls=client.V1VolumeAttachment, list_cls=client.V1VolumeAttachmentList,
            namespaced=False,
            body=lambda n: client.V1VolumeAttachment(metadata=meta(n), spec=client.V1VolumeAttachmentSpec(
                attacher="csi.example.com", node_name="py-node-va",
                source=client.V1VolumeAttachmentSource(persistent_volume_name="pv-" + n))),
            create=storage.create_volume_attachment, read=storage.read_volume_attachment,
            list=storage.list_volume_attachment, replace=storage.replace_volume_attachment,
            patch=storage.patch_volume_attachment, delete=storage.delete_volume_attachment,
            read_status=storage.read_volume_attachment_status, replace_status=storage.replace_volume_attachment_status,
            patch_status=storage.patch_volume_attachment_status,
            status=lambda o: setattr(o, "status", client.V1VolumeAttachmentStatus(
                attached=True, attachment_metadata={"device": "/dev/xvdb"})),
            status_check=lambda o: o.status.attached is True and o.status.attachment_metadata["device"] == "/dev/xvdb",
        ),
    ]


def call(k, fn, name, *args, **kwargs):
    """Calls a typed API function with the namespace argument when the kind is namespaced."""
    if k["namespaced"]:
        return fn(name, NS, *args, **kwargs) if name is not None else fn(NS, *args, **kwargs)
    return fn(name, *args, **kwargs) if name is not None else fn(*args, **kwargs)


def create(k, name):
    body = k["body"](name)
    obj = k["create"](NS, body) if k["namespaced"] else k["create"](body)
    return expect_type(obj, k["cls"])


def section_crud():
    """Create, read, list with a label selector, replace, then a stale replace answered 409, for every kind."""
    for k in kinds():
        name = "py-" + k["name"].lower()
        created = create(k, name)
        check(created.metadata.name == name and created.metadata.uid, "%s: created without a uid" % k["name"])
        read = expect_type(call(k, k["read"], name), k["cls"])
        check(read.metadata.resource_version == created.metadata.resource_version, "%s: read another version" % k["name"])
        listed = expect_type(call(k, k["list"], None, label_selector="suite=python"), k["list_cls"])
        check(name in [o.metadata.name for o in listed.items], "%s: not listed by its label" % k["name"])
        for o in listed.items:
            expect_type(o, k["cls"])
        none = call(k, k["list"], None, label_selector="suite=python,absent=yes")
        check(name not in [o.metadata.name for o in none.items], "%s: listed by a label it does not have" % k["name"])

        read.metadata.labels["replaced"] = "yes"
        replaced = expect_type(call(k, k["replace"], name, read), k["cls"])
        check(replaced.metadata.labels.get("replaced") == "yes", "%s: replace lost the label" % k["name"])
        check(replaced.metadata.resource_version != read.metadata.resource_version, "%s: replace kept the resourceVersion" % k["name"])
        # `read` still carries the resourceVersion before the replace.
        read.metadata.labels["stale"] = "yes"
        try:
            call(k, k["replace"], name, read)
            raise AssertionError("%s: a replace with a stale resourceVersion succeeded" % k["name"])
        except ApiException as e:
            check(e.status == 409, "%s: stale replace answered %s, not 409" % (k["name"], e.status))
            status = json.loads(e.body)
            check(status["kind"] == "Status" and status["reason"] == "Conflict", "%s: 409 body %s" % (k["name"], e.body))


def section_patch():
    """Strategic merge (a dict), JSON patch (a list) and merge patch (the Content-Type the client is told to send)."""
    merge_client = client.ApiClient(api_client.configuration)
    merge_client.set_default_header("Content-Type", "application/merge-patch+json")
    merge = {
        "Node": client.CoreV1Api(merge_client).patch_node,
        "Namespace": client.CoreV1Api(merge_client).patch_namespace,
        "Pod": client.CoreV1Api(merge_client).patch_namespaced_pod,
        "ConfigMap": client.CoreV1Api(merge_client).patch_namespaced_config_map,
        "NetworkPolicy": client.NetworkingV1Api(merge_client).patch_namespaced_network_policy,
        "DaemonSet": client.AppsV1Api(merge_client).patch_namespaced_daemon_set,
        "ControllerRevision": client.AppsV1Api(merge_client).patch_namespaced_controller_revision,
        "VolumeAttachment": client.StorageV1Api(merge_client).patch_volume_attachment,
    }
    for k in kinds():
        name = "py-" + k["name"].lower()
        smp = expect_type(call(k, k["patch"], name, {"metadata": {"labels": {"strategic": "yes"}}}), k["cls"])
        check(smp.metadata.labels.get("strategic") == "yes", "%s: strategic merge patch not applied" % k["name"])
        jp = expect_type(call(k, k["patch"], name, [
            {"op": "test", "path": "/metadata/labels/strategic", "value": "yes"},
            {"op": "add", "path": "/metadata/annotations", "value": {"json-patch": "yes"}},
        ]), k["cls"])
        check(jp.metadata.annotations.get("json-patch") == "yes", "%s: JSON patch not applied" % k["name"])
        mp = expect_type(call(k, merge[k["name"]], name, {"metadata": {"labels": {"strategic": None, "merge": "yes"}}}), k["cls"])
        check(mp.metadata.labels.get("merge") == "yes" and "strategic" not in mp.metadata.labels,
              "%s: merge patch not applied: %s" % (k["name"], mp.metadata.labels))
    # A strategic merge patch merges a list by its key: the DaemonSet's containers by name.
    ds = apps.patch_namespaced_daemon_set("py-daemonset", NS, {"spec": {"template": {"spec": {"containers": [
        {"name": "main", "image": "registry.k8s.io/pause:3.10"}]}}}})
    check([c.image for c in ds.spec.template.spec.containers] == ["registry.k8s.io/pause:3.10"], "DaemonSet container not merged by name")
    # A failing JSON patch test is a 422 Status, as upstream.
    try:
        core.patch_namespaced_config_map("py-configmap", NS, [{"op": "test", "path": "/data/a", "value": "other"}])
        raise AssertionError("a failing JSON patch test succeeded")
    except ApiException as e:
        check(e.status == 422, "failing JSON patch test answered %s" % e.status)


def section_status():
    """Every status subresource: read, replace and patch through the *_status calls."""
    for k in kinds():
        if "replace_status" not in k:
            continue
        name = "py-" + k["name"].lower()
        current = expect_type(call(k, k["read_status"], name), k["cls"])
        k["status"](current)
        replaced = expect_type(call(k, k["replace_status"], name, current), k["cls"])
        check(k["status_check"](replaced), "%s: status not replaced" % k["name"])
        patched = expect_type(call(k, k["patch_status"], name, {"metadata": {"annotations": {"status-patch": "yes"}}}), k["cls"])
        check(k["status_check"](patched), "%s: status patch lost the status" % k["name"])
        again = expect_type(call(k, k["read"], name), k["cls"])
        check(k["status_check"](again), "%s: status not stored" % k["name"])


def section_paging():
    """limit and continue: pages of a labelled list, in order, ending without a continue token."""
    names = ["py-page-%d" % i for i in range(5)]
    for n in names:
        core.create_namespaced_config_map(NS, client.V1ConfigMap(metadata=meta(n, labels={"page": "yes"})))
    seen, token, pages = [], None, 0
    while True:
        kwargs = {"label_selector": "page=yes", "limit": 2}
        if token:
            kwargs["_continue"] = token
        page = expect_type(core.list_namespaced_config_map(NS, **kwargs), client.V1ConfigMapList)
        pages += 1
        check(len(page.items) <= 2, "a page of %d items for limit 2" % len(page.items))
        seen += [o.metadata.name for o in page.items]
        token = page.metadata._continue
        if not token:
            break
        check(page.metadata.remaining_item_count in (None, 5 - len(seen)),
              "remainingItemCount %s after %d" % (page.metadata.remaining_item_count, len(seen)))
    check(seen == names, "paged through %s" % seen)
    check(pages == 3, "%d pages for 5 items by 2" % pages)
    everywhere = expect_type(core.list_config_map_for_all_namespaces(label_selector="page=yes", limit=10), client.V1ConfigMapList)
    check(sorted(o.metadata.name for o in everywhere.items) == names, "list across namespaces")
    core.delete_collection_namespaced_config_map(NS, label_selector="page=yes")
    check(core.list_namespaced_config_map(NS, label_selector="page=yes").items == [], "deletecollection left items")


def section_watch():
    """A watch of every kind from a list's resourceVersion: the objects created after it arrive as typed ADDED events."""
    for k in kinds():
        rv = call(k, k["list"], None, label_selector="watched=yes").metadata.resource_version
        name = "py-watch-" + k["name"].lower()
        body = k["body"](name)
        body.metadata.labels = {"watched": "yes"}
        obj = k["create"](NS, body) if k["namespaced"] else k["create"](body)
        w = watch.Watch()
        events = []
        args = [NS] if k["namespaced"] else []
        for ev in w.stream(k["list"], *args, label_selector="watched=yes", resource_version=rv, timeout_seconds=10):
            events.append(ev)
            if ev["type"] == "ADDED":
                w.stop()
        check(events and events[0]["type"] == "ADDED", "%s: events %s" % (k["name"], [e["type"] for e in events]))
        got = expect_type(events[0]["object"], k["cls"])
        check(got.metadata.name == name and got.metadata.uid == obj.metadata.uid, "%s: watched another object" % k["name"])
        call(k, k["delete"], name)


def section_watch_bookmarks():
    """allowWatchBookmarks: changes after the resourceVersion in order, then a BOOKMARK (sent before the timeout) with a newer one."""
    rv = core.list_namespaced_config_map(NS).metadata.resource_version
    core.create_namespaced_config_map(NS, client.V1ConfigMap(metadata=meta("py-bookmark"), data={"v": "1"}))
    core.patch_namespaced_config_map("py-bookmark", NS, {"data": {"v": "2"}})
    core.delete_namespaced_config_map("py-bookmark", NS)
    w = watch.Watch()
    events = []
    for ev in w.stream(core.list_namespaced_config_map, NS, resource_version=rv, allow_watch_bookmarks=True,
                       timeout_seconds=4):
        events.append(ev)
        if ev["type"] == "BOOKMARK":
            w.stop()
    mine = [(e["type"], e["object"].data.get("v")) for e in events if e["type"] != "BOOKMARK" and e["object"].metadata.name == "py-bookmark"]
    check(mine == [("ADDED", "1"), ("MODIFIED", "2"), ("DELETED", "2")], "events %s" % mine)
    for e in events:
        if e["type"] != "BOOKMARK":
            expect_type(e["object"], client.V1ConfigMap)
    check(events[-1]["type"] == "BOOKMARK", "no BOOKMARK before the timeout: %s" % [e["type"] for e in events])
    bookmark = events[-1]["raw_object"]
    check(bookmark["kind"] == "ConfigMap" and int(bookmark["metadata"]["resourceVersion"]) > int(rv), "bookmark %s" % bookmark)


def section_delete():
    """Delete every kind: the answer deserialises (the object or a Status), and a second delete is a 404."""
    for k in reversed(kinds()):
        name = "py-" + k["name"].lower()
        if k["name"] == "Namespace":
            answer = core.delete_namespace(name)
        else:
            answer = call(k, k["delete"], name, grace_period_seconds=0)
        check(isinstance(answer, (k["cls"], client.V1Status)), "%s: delete answered %r" % (k["name"], type(answer)))
        try:
            gone = call(k, k["read"], name)
            # A namespace (and a pod with finalizers) may still be terminating.
            check(gone.metadata.deletion_timestamp is not None, "%s: still there after delete" % k["name"])
        except ApiException as e:
            check(e.status == 404, "%s: read after delete answered %s" % (k["name"], e.status))


SECTIONS = {
    "crud": section_crud,
    "patch": section_patch,
    "status": section_status,
    "paging": section_paging,
    "watch": section_watch,
    "watch-bookmarks": section_watch_bookmarks,
    "delete": section_delete,
}


def main():
    global api_client, core, apps, networking, storage
    config.load_kube_config(config_file=sys.argv[1])
    api_client = client.ApiClient()
    # With it (the default) the models raise on a required field the answer lacks: every typed answer below is checked.
    check(api_client.configuration.client_side_validation, "the client does not validate what it deserialises")
    core, apps = client.CoreV1Api(api_client), client.AppsV1Api(api_client)
    networking, storage = client.NetworkingV1Api(api_client), client.StorageV1Api(api_client)
    core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=NS)))
    for name in sys.argv[2:] or SECTIONS:
        try:
            SECTIONS[name]()
            print(json.dumps({"section": name, "ok": True}), flush=True)
        except Exception as e:  # noqa: BLE001 - every failure is reported, the next section still runs
            detail = e.body if isinstance(e, ApiException) else ""
            print(json.dumps({"section": name, "ok": False, "error": "%s: %s %s\n%s" % (
                type(e).__name__, e, detail, traceback.format_exc())}), flush=True)


if __name__ == "__main__":
    main()
