/**
 * The handlers' log lines of one deployment, per tenant: tenants' executions run at once
 * and log into one list, and each tenant's progress reads only its own lines (its job ids
 * restart at job-0001 like every other tenant's). A line names its tenant in its `tenant`
 * member; a line without one belongs to no tenant's progress.
 */
export class TenantLogLines {
  readonly #all: readonly string[];
  readonly #byTenant = new Map<string, string[]>();
  #read = 0;

  /** `all`: the deployment's growing list of log lines (JSON text). */
  constructor(all: readonly string[]) {
    this.#all = all;
  }

  /** A function giving `tenant`'s lines so far (the same growing array each call). */
  of(tenant: string): () => readonly string[] {
    const lines = this.#linesOf(tenant);
    return () => {
      this.#catchUp();
      return lines;
    };
  }

  #linesOf(tenant: string): string[] {
    let lines = this.#byTenant.get(tenant);
    if (lines === undefined) {
      lines = [];
      this.#byTenant.set(tenant, lines);
    }
    return lines;
  }

  #catchUp(): void {
    for (; this.#read < this.#all.length; this.#read++) {
      const line = this.#all[this.#read] as string;
      const tenant = tenantOf(line);
      if (tenant !== undefined) this.#linesOf(tenant).push(line);
    }
  }
}

function tenantOf(line: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(line);
    if (typeof parsed !== 'object' || parsed === null) return undefined;
    const tenant = (parsed as { tenant?: unknown }).tenant;
    return typeof tenant === 'string' ? tenant : undefined;
  } catch {
    return undefined;
  }
}
