export default Queue

function Queue(initial = []) {
  let xs = initial.slice()
  let index = 0

  return {
    get length() {
      return xs.length - index
    },
    remove: (x) => {
      const at = xs.indexOf(x, index)
      return at === -1
        ? null
        : (xs.splice(at, 1), x)
    },
    push: (x) => (xs.push(x), x),
    peek: () => xs[index],
    shift: () => {
      const out = xs[index++]

      if (index === xs.length) {
        index = 0
        xs = []
      } else if (index >= 16 && index * 2 >= xs.length) {
        // a queue that is never empty (a pool's open or busy connections) would otherwise keep
        // every shifted slot: compact once the dead prefix is as long as the live part
        xs = xs.slice(index)
        index = 0
      } else {
        xs[index - 1] = undefined
      }

      return out
    }
  }
}
