// The head of a `table.grid` whose last column holds each row's buttons: the column is named for
// screen readers only (a visible "Actions" header says nothing a sighted person needs).
export function GridHead(props: { columns: string[] }) {
  return (
    <thead>
      <tr>
        {props.columns.map((name) => (
          <th key={name}>{name}</th>
        ))}
        <th>
          <span class="sr-only">Actions</span>
        </th>
      </tr>
    </thead>
  )
}
