/** Admin commands: organizations, API keys, credits, usage. */
import { generateApiKey } from '../access/keyed/api-keys.js';
import { createServices } from '../config/services.js';
import { withoutControls } from '../core/controls.js';
import { formatUsd, parse, parseUsd, requireString, settingsFrom, UsageError, wholeNumberFlag } from './args.js';

type Out = (human: string, json: unknown) => void;

function printer(json: boolean): Out {
  return (human, obj) => process.stdout.write(`${json ? JSON.stringify(obj) : human}\n`);
}

function rateLimitValue(v: unknown): number | undefined {
  if (v === undefined || v === 'default') return undefined;
  try {
    return wholeNumberFlag(v, 'rate-limit', 1, 1_000_000);
  } catch {
    throw new UsageError('--rate-limit must be a whole number of requests per second (1 to 1000000) or "default"');
  }
}

const ORG_NAME_MAX = 200;

/** --limit of a list: 20 when not given. */
const listLimit = (v: unknown) => wholeNumberFlag(v, 'limit', 1, 100_000) ?? 20;

export async function adminCommand(group: string, argv: string[]): Promise<void> {
  const { values, positionals } = parse(argv, {
    org: { type: 'string' },
    usd: { type: 'string' },
    'rate-limit': { type: 'string' },
    limit: { type: 'string' },
  });
  const out = printer(values.json === true);
  const services = await createServices(settingsFrom(values));
  try {
    const [action, ...rest] = positionals;
    const orgOf = async () => {
      const id = requireString(values, 'org');
      const org = await services.accounts.getOrg(id);
      if (!org) throw new UsageError(`No organization ${id}`);
      return org;
    };
    switch (`${group} ${action}`) {
      case 'org create': {
        const name = rest.join(' ').trim();
        if (!name) throw new UsageError('usage: websearch org create <name> [--rate-limit N]');
        // The name is printed back by later commands: a terminal's escape sequences are not stored.
        if ([...name].length > ORG_NAME_MAX || /\p{Cc}/u.test(name)) {
          throw new UsageError(`an organization's name is at most ${ORG_NAME_MAX} characters, none of them control characters`);
        }
        const org = await services.accounts.createOrg(name, rateLimitValue(values['rate-limit']));
        out(`Created organization ${org.id} (${org.name})`, { id: org.id, name: org.name });
        return;
      }
      case 'org list': {
        const listed = await services.accounts.listOrgs(listLimit(values.limit));
        const rows = [];
        for (const { org, activeKeys } of listed) {
          rows.push({
            id: org.id,
            name: org.name,
            billing: org.billing,
            rate_limit: org.rateLimitPerSecond ?? null,
            created_at: new Date(org.createdAt).toISOString(),
            balance_usd: formatUsd((await services.ledger.balance(org.id)) ?? 0),
            active_keys: activeKeys,
          });
        }
        // Names are checked when made, but a database of an older release may hold any: none reaches the terminal.
        const lines = rows.map(
          (r) =>
            `${r.id}  ${r.created_at}  ${r.billing.padEnd(10)} ${r.balance_usd} USD  ${r.active_keys} key${r.active_keys === 1 ? '' : 's'}  ${r.rate_limit ?? 'default'} req/s  ${withoutControls(r.name)}`,
        );
        out(lines.join('\n') || 'No organizations', rows);
        return;
      }
      case 'org set': {
        const org = await orgOf();
        const rate = rateLimitValue(values['rate-limit'] ?? 'default');
        await services.accounts.setOrgRateLimit(org.id, rate);
        out(`Rate limit of ${org.id}: ${rate ?? `default (${services.settings.keyedRatePerSecond})`} requests/s`, {
          id: org.id,
          rate_limit: rate ?? null,
        });
        return;
      }
      case 'key create': {
        const org = await orgOf();
        const { key, prefix, hash } = generateApiKey();
        const id = `key_${prefix}`;
        await services.accounts.insertKey({ id, orgId: org.id, prefix, hash, createdAt: Date.now() });
        out(`Created key ${id} for ${org.id}. It is shown only this once:\n${key}`, { id, key, org: org.id });
        return;
      }
      case 'key list': {
        const org = await orgOf();
        const keys = (await services.accounts.listKeys(org.id)).map((k) => ({
          id: k.id,
          created_at: new Date(k.createdAt).toISOString(),
          revoked_at: k.revokedAt === undefined ? null : new Date(k.revokedAt).toISOString(),
        }));
        const lines = keys.map((k) => `${k.id}  created ${k.created_at}${k.revoked_at ? `  revoked ${k.revoked_at}` : ''}`);
        out(lines.length ? lines.join('\n') : `No keys for ${org.id}`, { org: org.id, keys });
        return;
      }
      case 'key revoke': {
        const id = rest[0];
        if (!id) throw new UsageError('usage: websearch key revoke <key-id>');
        const revoked = await services.accounts.revokeKey(id, Date.now());
        if (!revoked) throw new UsageError(`No active key ${id}`);
        out(`Revoked ${id}`, { id, revoked: true });
        return;
      }
      case 'credits add': {
        const amount = parseUsd(typeof values.usd === 'string' ? values.usd : undefined);
        const org = await orgOf();
        const balance = await services.ledger.credit(org.id, amount, 'cli credits add');
        out(`Balance of ${org.id}: ${formatUsd(balance)} USD`, { org: org.id, balance_usd: formatUsd(balance) });
        return;
      }
      case 'credits show': {
        const org = await orgOf();
        const balance = (await services.ledger.balance(org.id)) ?? 0;
        out(`Balance of ${org.id}: ${formatUsd(balance)} USD`, { org: org.id, balance_usd: formatUsd(balance) });
        return;
      }
      case 'usage list': {
        const org = typeof values.org === 'string' ? values.org : undefined;
        const rows = await services.usage.list({ orgId: org, limit: listLimit(values.limit) });
        const lines = rows.map(
          (r) =>
            `${new Date(r.at).toISOString()}  ${r.tier.padEnd(8)} ${r.operation.padEnd(6)} ${r.status}  ${formatUsd(r.costMicroUsd)} USD  ${r.latencyMs} ms  ${r.orgId ?? r.appTitle ?? ''}`,
        );
        out(lines.join('\n') || 'No usage recorded', rows);
        return;
      }
      case 'payments list': {
        const rows = await services.payments.list(listLimit(values.limit));
        const lines = rows.map(
          (p) =>
            `${new Date(p.at).toISOString()}  ${p.outcome.padEnd(17)} ${p.operation.padEnd(6)} ${p.payer}  ${p.amount} ${p.network}  ${p.transaction ?? '-'}${p.reason ? `  (${p.reason})` : ''}`,
        );
        out(lines.join('\n') || 'No payments recorded', rows);
        return;
      }
      default:
        throw new UsageError(`Unknown command: ${group} ${action ?? ''}`.trim());
    }
  } finally {
    await services.close();
  }
}
