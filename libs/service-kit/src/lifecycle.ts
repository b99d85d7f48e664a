import { Injectable } from '@nestjs/common';

/**
 * Shared readiness state: false as soon as shutdown starts, and while any condition a part of the
 * service registered says it cannot serve yet (e.g. the gateway's token revocations not caught up).
 */
@Injectable()
export class Lifecycle {
  shuttingDown = false;
  private readonly conditions = new Map<string, () => string | undefined>();

  /** `check` answers why the service is not ready, or undefined when this part is. */
  addReadiness(name: string, check: () => string | undefined): void {
    this.conditions.set(name, check);
  }

  /** The parts that are not ready, with their reasons. */
  notReady(): Record<string, string> {
    const reasons: Record<string, string> = {};
    for (const [name, check] of this.conditions) {
      const reason = check();
      if (reason) reasons[name] = reason;
    }
    return reasons;
  }
}
