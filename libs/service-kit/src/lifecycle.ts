import { Injectable } from '@nestjs/common';

/** Shared shutdown state: readiness turns false as soon as shutdown starts. */
@Injectable()
export class Lifecycle {
  shuttingDown = false;
}
