/**
 * Apache Lucene as the benchmarks' peer (bench/lucene/LuceneBench.java), and the child processes
 * they time in turn with ours: used by bench/search.ts and bench/long-queries.ts.
 */
import { type ChildProcess, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const LUCENE_JARS = ['lucene-core', 'lucene-analyzers-common'];

/** Debian's Lucene 8 and a JDK, installed for the benchmark only (never for the product). */
export function luceneClasspath(): string | undefined {
  const find = () => {
    const jars = LUCENE_JARS.map((name) => {
      try {
        return readdirSync('/usr/share/java').find((f) => f.startsWith(`${name}-8`) && f.endsWith('.jar'));
      } catch {
        return undefined;
      }
    });
    return jars.every(Boolean) ? jars.map((j) => `/usr/share/java/${j}`).join(':') : undefined;
  };
  const found = find();
  if (found && spawnSync('java', ['-version']).status === 0) return found;
  console.error('Installing liblucene8-java and a JDK (apt-get) for the Lucene comparison...');
  const apt = (args: string[]) => spawnSync('apt-get', args, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  apt(['update', '-qq']);
  apt(['install', '-y', '-qq', 'liblucene8-java', 'default-jdk-headless']);
  return find();
}

/** The command line of bench/lucene/LuceneBench.java with `args`. */
export const luceneBench = (cp: string, args: string[]) => ['-Xmx4g', '-cp', cp, join(import.meta.dirname, 'lucene', 'LuceneBench.java'), ...args];

export function java(cp: string, args: string[]): Record<string, unknown>[] {
  const r = spawnSync('java', luceneBench(cp, args), { encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
  if (r.status !== 0) throw new Error(`Lucene: ${r.stderr}`);
  return r.stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
}

/** A child process that answers each line written to it with one JSON line (others it prints are ignored). */
export class LineServer {
  private readonly answers: Record<string, unknown>[] = [];
  private waiting: { resolve: (o: Record<string, unknown>) => void; reject: (e: Error) => void } | undefined;
  private failure: Error | undefined;
  private stderr = '';
  private readonly exited: Promise<void>;

  constructor(
    private readonly name: string,
    private readonly child: ChildProcess,
  ) {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (!line.startsWith('{')) return;
      const o = JSON.parse(line) as Record<string, unknown>;
      const w = this.waiting;
      this.waiting = undefined;
      if (w) w.resolve(o);
      else this.answers.push(o);
    });
    child.stderr!.on('data', (d: Buffer) => (this.stderr = (this.stderr + d.toString()).slice(-10_000)));
    this.exited = once(child, 'exit').then(([code]) => {
      if (code !== 0) this.failure = new Error(`${this.name} exited with ${code}: ${this.stderr}`);
      this.waiting?.reject(this.failure ?? new Error(`${this.name} exited`));
      this.waiting = undefined;
    });
  }

  /** Writes `line` and waits for the next JSON line. */
  ask(line: string): Promise<Record<string, unknown>> {
    if (this.failure) return Promise.reject(this.failure);
    this.child.stdin!.write(`${line}\n`);
    const ready = this.answers.shift();
    if (ready) return Promise.resolve(ready);
    return new Promise((resolve, reject) => (this.waiting = { resolve, reject }));
  }

  /** Writes `last` (if any), closes stdin, and returns every JSON line not yet taken once the process has exited. */
  async finish(last?: string): Promise<Record<string, unknown>[]> {
    this.child.stdin!.end(last === undefined ? undefined : `${last}\n`);
    await this.exited;
    if (this.failure) throw this.failure;
    return this.answers.splice(0);
  }
}

