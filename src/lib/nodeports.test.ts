import { describe, expect, it } from 'vitest';
import { clashingHostPorts, formatHostPort, hostPortsOf } from './nodeports.ts';

describe('host ports', () => {
  it('are the container ports with a hostPort, the containerPort itself with hostNetwork', () => {
    expect(hostPortsOf({ containers: [{ ports: [{ containerPort: 80 }, { containerPort: 443, hostPort: 8443, protocol: 'TCP' }] }] })).toEqual([{ hostIP: '0.0.0.0', protocol: 'TCP', port: 8443 }]);
    expect(hostPortsOf({ hostNetwork: true, containers: [{ ports: [{ containerPort: 9100 }, { containerPort: 53, protocol: 'UDP' }] }] })).toEqual([
      { hostIP: '0.0.0.0', protocol: 'TCP', port: 9100 },
      { hostIP: '0.0.0.0', protocol: 'UDP', port: 53 },
    ]);
    // Sidecars (init containers that keep running) count; plain init containers do not.
    expect(hostPortsOf({ initContainers: [{ restartPolicy: 'Always', ports: [{ containerPort: 1, hostPort: 7000 }] }, { ports: [{ containerPort: 1, hostPort: 7001 }] }] }).map((p) => p.port)).toEqual([7000]);
    expect(hostPortsOf(undefined)).toEqual([]);
    expect(hostPortsOf({ containers: [{ ports: 'nonsense' as never }] })).toEqual([]);
  });

  it('clash on the same port and protocol unless both are bound to different addresses', () => {
    const p = (port: number, protocol = 'TCP', hostIP = '0.0.0.0') => ({ port, protocol, hostIP });
    expect(clashingHostPorts([p(9100)], [p(9100)])).toEqual([p(9100)]);
    expect(clashingHostPorts([p(9100)], [p(9100, 'UDP')])).toEqual([]);
    expect(clashingHostPorts([p(9100, 'TCP', '10.0.0.1')], [p(9100)])).toHaveLength(1);
    expect(clashingHostPorts([p(9100, 'TCP', '10.0.0.1')], [p(9100, 'TCP', '10.0.0.2')])).toEqual([]);
    expect(formatHostPort(p(53, 'UDP', '10.0.0.1'))).toBe('10.0.0.1:53/UDP');
  });
});
