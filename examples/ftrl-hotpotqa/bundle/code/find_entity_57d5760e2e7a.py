ANSWERS = {"step 1.1 of \"Brown State Fishing Lake is in a country that has a population of how many inhabitants ?\"":"fact-f2bddc","step 2.1 of \"Brown State Fishing Lake is in a country that has a population of how many inhabitants ?\"":"fact-071660"}

def find_entity_57d5760e2e7a(**arguments):
    return "Result: " + ANSWERS.get(arguments.get("query"), "no record")
