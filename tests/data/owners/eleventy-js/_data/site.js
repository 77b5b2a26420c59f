export default {
  title: "Tide Log",
  author: {
    name: "Ines Duarte",
    url: "https://tides.example/about/",
  },
};
