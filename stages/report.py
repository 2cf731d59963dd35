"""DVC stage `report`: the day's run report, notebooks/run_report.ipynb executed by papermill and rendered to HTML."""

from pathlib import Path

from papers_digest.pipeline.runner import run_stage, stage_parser
from papers_digest.report.notebook import execute_and_render


def main() -> None:
    parser = stage_parser("report", __doc__)
    parser.add_argument("--notebook", required=True, help="the report notebook, kept in git without outputs")
    parser.add_argument("--day-dir", required=True, help="the day's folder: its files are what the report reads")
    parser.add_argument("--db", required=True, help="the database the report checks run.json against")
    parser.add_argument("--context-budget-tokens", type=int, required=True, help="engine.context_tokens")
    parser.add_argument("--out", required=True, help="the executed notebook to write; the HTML goes beside it")
    args = parser.parse_args()

    def body() -> None:
        parameters = {
            "date": args.date,
            "day_dir": args.day_dir,
            "db": args.db,
            "context_budget_tokens": args.context_budget_tokens,
        }
        html = execute_and_render(Path(args.notebook), Path(args.out), parameters)
        print(f"report: {args.date}: {html}")

    run_stage("report", body)


if __name__ == "__main__":
    main()
