import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));
const UNITS = ['realtime-config.service', 'realtime-config-backup.service', 'realtime-config-backup.timer'];
const available = spawnSync('systemd-analyze', ['--version']).status === 0;
// .ci/run installs Debian's systemd package and sets this: in CI the check never skips.
const required = process.env.RC_REQUIRE_SYSTEMD_ANALYZE === '1';
if (!available && !required) {
  process.stdout.write(
    'systemd unit checks skipped: systemd-analyze is missing (apt-get install systemd; .ci/run does).\n',
  );
}

/** The directives of a unit file, `Key` → every value it is given. */
function directives(text) {
  const result = new Map();
  for (const line of text.split('\n')) {
    const match = /^([A-Za-z]+)=(.*)$/.exec(line.trim());
    if (match) result.set(match[1], [...(result.get(match[1]) ?? []), match[2]]);
  }
  return result;
}

describe.skipIf(!available && !required)('deploy/systemd units', () => {
  let root;

  /**
   * `systemd-analyze verify` against a scratch root: the host's own units (targets the units refer
   * to), ours in /etc/systemd/system, and stand-ins for the programs they run (verify checks that
   * each ExecStart program exists), so nothing on this machine is installed or changed.
   */
  function verify(files) {
    rmSync(join(root, 'etc'), { recursive: true, force: true });
    mkdirSync(join(root, 'etc/systemd/system'), { recursive: true });
    for (const [name, text] of Object.entries(files)) {
      writeFileSync(join(root, 'etc/systemd/system', name), text);
      for (const line of text.split('\n')) {
        const program = /^Exec[A-Za-z]*=[-@+!:|]*(\/\S+)/.exec(line.trim())?.[1];
        if (!program) continue;
        mkdirSync(join(root, dirname(program)), { recursive: true });
        writeFileSync(join(root, program), '#!/bin/sh\n');
        chmodSync(join(root, program), 0o755);
      }
    }
    return spawnSync('systemd-analyze', ['verify', `--root=${root}`, ...Object.keys(files)], { encoding: 'utf8' });
  }

  const shipped = () => Object.fromEntries(UNITS.map((name) => [name, readFileSync(join(here, name), 'utf8')]));

  beforeAll(() => {
    expect(available, 'systemd-analyze is required here (RC_REQUIRE_SYSTEMD_ANALYZE=1)').toBe(true);
    root = mkdtempSync(join(tmpdir(), 'rc-systemd-'));
    const hostUnits = ['/usr/lib/systemd/system', '/lib/systemd/system'].find((dir) => existsSync(dir));
    cpSync(hostUnits, join(root, 'usr/lib/systemd/system'), { recursive: true });
  });
  afterAll(() => root && rmSync(root, { recursive: true, force: true }));

  it('systemd-analyze verify reports nothing on the service, the backup service and its timer', () => {
    const result = verify(shipped());
    expect({ status: result.status, output: `${result.stdout}${result.stderr}` }).toEqual({ status: 0, output: '' });
  });

  it('sees a mistake in a unit (so the silence above means something)', () => {
    const units = shipped();
    units['realtime-config.service'] = units['realtime-config.service'].replace(
      'ProtectSystem=strict',
      'ProtectSytem=strict',
    );
    expect(`${verify(units).stderr}`).toContain("Unknown key 'ProtectSytem'");
  });

  it('runs the server hardened: its own user, a read-only system, the data folder its only writable path', () => {
    const unit = directives(readFileSync(join(here, 'realtime-config.service'), 'utf8'));
    expect(unit.get('User')).toEqual(['realtime-config']);
    expect(unit.get('ProtectSystem')).toEqual(['strict']);
    expect(unit.get('NoNewPrivileges')).toEqual(['yes']);
    expect(unit.get('ReadWritePaths')).toEqual(['/var/lib/realtime-config/data']);
    expect(unit.get('StateDirectory')).toEqual(['realtime-config/data']);
    expect(unit.get('ExecStart')).toEqual([
      '/usr/local/bin/realtime-config-server --config /etc/realtime-config/appsettings.json',
    ]);
  });
});
