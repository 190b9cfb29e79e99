/**
 * One line of `hyphae doctor`'s report, shared by the quick and the deep checks.
 */

/** One line of the report. */
export interface DoctorItem {
  readonly name: string;
  readonly ok: boolean;
  readonly detail: string;
  /** How to fix a failure. */
  readonly fix?: string;
}
